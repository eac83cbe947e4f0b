import type { z } from 'zod';
import { apiKeyListWireSchema, apiKeyWireSchema, createdApiKeyWireSchema, revokedApiKeyWireSchema } from '../../domain/wire/apiKey.js';
import { computeAvailabilityWireSchema } from '../../domain/wire/compute.js';
import { concurrencyInfoWireSchema, concurrencyStatsWireSchema } from '../../domain/wire/concurrency.js';
import { inputOutputSchema, statusMessageWireSchema, timestampSchema, webhookWireSchema, workerCountsSchema } from '../../domain/wire/common.js';
import { deployResultWireSchema } from '../../domain/wire/deploy.js';
import { errorWireSchema, validationErrorWireSchema } from '../../domain/wire/error.js';
import { functionOrTruncatedWireSchema, functionWireSchema, truncatedFunctionWireSchema } from '../../domain/wire/function.js';
import { jobPageWireSchema, jobWireSchema, pushResultWireSchema } from '../../domain/wire/job.js';
import { logPageWireSchema } from '../../domain/wire/logPage.js';
import { organizationWireSchema } from '../../domain/wire/organization.js';
import { uploadWireSchema } from '../../domain/wire/upload.js';
import { creditsWireSchema, jobCostWireSchema, usagePerFunctionWireSchema, usageReportWireSchema } from '../../domain/wire/usage.js';
import { versionWireSchema } from '../../domain/wire/version.js';
import { webhookDeliveriesWireSchema, webhookDeliveryWireSchema, webhookSecretWireSchema } from '../../domain/wire/webhookDelivery.js';

/**
 * The wire schemas the API document names (`#/components/schemas/<name>`), so an answer that
 * holds a Job or a Version refers to one definition. The TypeScript client's types are made
 * from these names (clients/typescript/scripts/generateTypes.ts).
 */
export const COMPONENT_SCHEMAS: Record<string, z.ZodType> = {
  ErrorResponse: errorWireSchema,
  ValidationErrorResponse: validationErrorWireSchema,
  StatusMessage: statusMessageWireSchema,
  Organization: organizationWireSchema,
  Timestamp: timestampSchema,
  InputOutput: inputOutputSchema,
  Webhook: webhookWireSchema,
  WorkerCounts: workerCountsSchema,
  Version: versionWireSchema,
  FunctionInfo: functionWireSchema,
  TruncatedFunction: truncatedFunctionWireSchema,
  FunctionOrTruncated: functionOrTruncatedWireSchema,
  Upload: uploadWireSchema,
  DeployResult: deployResultWireSchema,
  Job: jobWireSchema,
  JobPage: jobPageWireSchema,
  PushResult: pushResultWireSchema,
  LogPage: logPageWireSchema,
  UsageReport: usageReportWireSchema,
  UsagePerFunction: usagePerFunctionWireSchema,
  JobCost: jobCostWireSchema,
  Credits: creditsWireSchema,
  ConcurrencyInfo: concurrencyInfoWireSchema,
  ConcurrencyStats: concurrencyStatsWireSchema,
  ComputeAvailability: computeAvailabilityWireSchema,
  WebhookDelivery: webhookDeliveryWireSchema,
  WebhookDeliveries: webhookDeliveriesWireSchema,
  WebhookSecret: webhookSecretWireSchema,
  ApiKey: apiKeyWireSchema,
  ApiKeyList: apiKeyListWireSchema,
  CreatedApiKey: createdApiKeyWireSchema,
  RevokedApiKey: revokedApiKeyWireSchema,
};
