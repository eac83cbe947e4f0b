/**
 * The API's answers as the dashboard reads them: the TypeScript client's types, generated from the
 * service's API document (clients/typescript/src/apiTypes.ts, `npm run generate` there), never
 * copied by hand. Type-only, so nothing of the client lands in the bundle.
 */
import type { Job, LogPage, UsageReport, Version } from '../../../clients/typescript/src/apiTypes.js';

export type {
  ApiKey,
  ApiKeyList,
  ConcurrencyInfo,
  CreatedApiKey,
  Credits,
  FunctionInfo,
  InputOutput,
  Job,
  JobPage,
  LogPage,
  Organization,
  PushResult,
  TruncatedFunction,
  Upload,
  UsagePerFunction,
  UsageReport,
  Version,
  WebhookDeliveries,
  WebhookSecret,
} from '../../../clients/typescript/src/apiTypes.js';

export type JobStatus = Job['status'];
export type BuildStatus = Version['build_status'];
/** One line of a log page (or of a job's `log` event). */
export type LogLine = LogPage['data'][number]['logs'][number];
/** One machine type's part of a usage report. */
export type MachineUsage = Exclude<UsageReport[keyof UsageReport], number>;
