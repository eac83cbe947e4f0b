/** Where a log line came from, as GET /v2/logs labels it. */
export type LogStage = 'build' | 'setup' | 'run';

/**
 * One line of output. `stream` groups the lines read together: `job:<id>` for a job's
 * run, `version:<id>` for a version's build and its replicas' setup.
 */
export interface LogEntry {
  stream: string;
  organizationId: string;
  functionId: string;
  jobId: string;
  runId: string;
  stage: LogStage;
  /** Nanoseconds since the epoch; unique and increasing within a stream. */
  timeNs: bigint;
  message: string;
}

export const jobLogStream = (jobId: string) => `job:${jobId}`;
export const versionLogStream = (versionId: string) => `version:${versionId}`;
