import type { Route } from './route.js';
import { deployVersion } from './routes/deployVersion.js';
import { editFunction } from './routes/editFunction.js';
import { getFunction } from './routes/getFunction.js';
import { getOrganization } from './routes/getOrganization.js';
import { getVersion } from './routes/getVersion.js';
import { listFunctions } from './routes/listFunctions.js';
import { listVersions } from './routes/listVersions.js';
import { readLogs } from './routes/readLogs.js';

/**
 * Every route of the service, once. The local gateway dispatches with it, the CDK api stack
 * creates an API route and a Lambda per entry, and the tests walk it.
 */
export const ROUTES: readonly Route[] = [
  getOrganization,
  listFunctions,
  getFunction,
  editFunction,
  listVersions,
  getVersion,
  deployVersion,
  readLogs,
];
