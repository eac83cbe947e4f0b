import packageJson from '../../package.json' with { type: 'json' };
import { apiReferencePage } from './openapi/apiReferencePage.js';
import type { OpenApiDocument } from './openapi/openApiDocument.js';
import { openApiDocument } from './openapi/openApiDocument.js';
import type { Route } from './route.js';
import { defineRoute } from './route.js';
import { createUpload } from './routes/createUpload.js';
import { deployVersion } from './routes/deployVersion.js';
import { editFunction } from './routes/editFunction.js';
import { getFunction } from './routes/getFunction.js';
import { getOrganization } from './routes/getOrganization.js';
import { getVersion } from './routes/getVersion.js';
import { listFunctions } from './routes/listFunctions.js';
import { listVersions } from './routes/listVersions.js';
import { readLogs } from './routes/readLogs.js';
import { streamLogEvents } from './routes/logEvents.js';
import { streamJobEvents } from './routes/jobEvents.js';
import { awaitJob } from './routes/awaitJob.js';
import { cancelJob } from './routes/cancelJob.js';
import { getJob } from './routes/getJob.js';
import { getJobFile } from './routes/getJobFile.js';
import { listFunctionJobs } from './routes/listFunctionJobs.js';
import { listJobs } from './routes/listJobs.js';
import { listVersionJobs } from './routes/listVersionJobs.js';
import { pushJob } from './routes/pushJob.js';
import { replayJob } from './routes/replayJob.js';
import { listJobWebhooks, resendJobWebhooks } from './routes/jobWebhooks.js';
import { getCredits, getFunctionUsage, getJobUsage, getUsage, getUsagePerFunction, getVersionUsage } from './routes/usage.js';
import { getConcurrency, getConcurrencyStats } from './routes/concurrency.js';
import { getComputeAvailability } from './routes/computeAvailability.js';
import { editVersion } from './routes/editVersion.js';
import { health } from './routes/health.js';
import { getWebhookSecret, rotateWebhookSecret } from './routes/webhookSecret.js';
import { createApiKey, listApiKeys, revokeApiKey } from './routes/apiKeys.js';
import { getOrganizationLimits, listOrganizationLimits, setOrganizationLimits } from './routes/operatorOrganizations.js';

// The two routes that print the table are defined beside it: the table holds them, and they read it.
// Made once per process, at the first request: the route table does not change while it runs.
let document: OpenApiDocument | undefined;
const theDocument = () => (document ??= openApiDocument(ROUTES, packageJson.version));
let page: string | undefined;

/** The API's OpenAPI 3.1 document, made from the route table's own schemas. */
export const getOpenApiDocument = defineRoute({
  name: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  public: true,
  summary: 'This API as an OpenAPI 3.1 document',
  response: { description: 'The OpenAPI 3.1 document.', contentType: 'application/json' },
  handle: async () => ({ body: theDocument() }),
});

/** The same document as a page to read: every operation with its parameters, body, answers and a curl line. */
export const getApiReference = defineRoute({
  name: 'getApiReference',
  method: 'GET',
  path: '/docs/api',
  public: true,
  summary: 'This API’s reference, as a web page',
  response: { description: 'The reference, one self-contained HTML page.', contentType: 'text/html' },
  handle: async () => ({ text: (page ??= apiReferencePage(theDocument())), contentType: 'text/html; charset=utf-8' }),
});

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
  editVersion,
  createUpload,
  deployVersion,
  listFunctionJobs,
  listVersionJobs,
  pushJob,
  getJob,
  listJobs,
  awaitJob,
  streamJobEvents,
  cancelJob,
  replayJob,
  getJobFile,
  readLogs,
  streamLogEvents,
  getUsage,
  getFunctionUsage,
  getUsagePerFunction,
  getVersionUsage,
  getJobUsage,
  getCredits,
  getConcurrency,
  getConcurrencyStats,
  getComputeAvailability,
  listJobWebhooks,
  resendJobWebhooks,
  getWebhookSecret,
  rotateWebhookSecret,
  getOpenApiDocument,
  getApiReference,
  health,
  listApiKeys,
  createApiKey,
  revokeApiKey,
  listOrganizationLimits,
  getOrganizationLimits,
  setOrganizationLimits,
];
