import type { Route } from './route.js';
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
import { listJobWebhooks, resendJobWebhooks } from './routes/jobWebhooks.js';
import { getCredits, getFunctionUsage, getJobUsage, getUsage, getUsagePerFunction, getVersionUsage } from './routes/usage.js';
import { getConcurrency, getConcurrencyStats } from './routes/concurrency.js';
import { getComputeAvailability } from './routes/computeAvailability.js';
import { editVersion } from './routes/editVersion.js';
import { health } from './routes/health.js';
import { getWebhookSecret, rotateWebhookSecret } from './routes/webhookSecret.js';
import { getApiReference, getOpenApiDocument } from './routes/apiDocument.js';
import { createApiKey, listApiKeys, revokeApiKey } from './routes/apiKeys.js';

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
];
