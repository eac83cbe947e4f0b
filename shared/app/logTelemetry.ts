import type { OperationalEvent, ReplicaEvent, Telemetry } from '../ports/telemetry.js';
import type { JobEvent } from '../ports/jobEvents.js';
import type { Logger } from './logger.js';

/** A failure's message in a log line: enough to tell what happened, not a whole traceback. */
const ERROR_CHARS = 300;

/**
 * One structured log line per operational event, at info (warn for what an operator should
 * look at: a failed build, a crashed replica, a webhook that failed); a job's start at debug.
 * Job outputs are not logged: they are the job's own data.
 */
export function logTelemetry(logger: Logger): Telemetry {
  return {
    record(event: OperationalEvent) {
      switch (event.kind) {
        case 'job':
          return logJob(logger, event.event);
        case 'build': {
          const { version, status } = event;
          const fields = { versionId: version.id, functionId: version.functionId, status };
          if (status === 'error') logger.warn({ ...fields, error: cut(version.buildError ?? '') }, 'build failed');
          else logger.info(fields, `build ${status}`);
          return;
        }
        case 'replica':
          return logReplica(logger, event.event);
        case 'webhook': {
          const fields = {
            deliveryId: event.delivery.id,
            jobId: event.delivery.jobId,
            host: hostOf(event.delivery.url),
            eventType: event.delivery.eventType,
            attempt: event.delivery.attempts.length,
            status: event.status,
          };
          if (event.outcome === 'delivered') logger.debug(fields, 'webhook delivered');
          else
            logger.warn({ ...fields, error: cut(event.error ?? '') }, event.outcome === 'failed' ? 'webhook failed, given up' : 'webhook failed, will retry');
          return;
        }
      }
    },
  };
}

/**
 * One line per job at info, at its end, with what its start told (attempt, time waited): a
 * second line per job cost 12-19% of a busy service's throughput (issue 33). The start is
 * logged at debug.
 */
function logJob(logger: Logger, event: JobEvent): void {
  const level = event.type === 'completed' ? 'info' : 'debug';
  if (event.type === 'output' || !logger.isLevelEnabled(level)) return; // its fields are built per job: not for nothing
  const { job } = event;
  const waitedMs = job.startedAt === null ? null : Math.round((job.startedAt - job.createdAt) / 1000);
  const fields = { jobId: job.id, function: `${job.ownerName}/${job.functionName}`, versionId: job.versionId, attempt: job.attempts, waitedMs };
  if (event.type === 'started') return logger.debug(fields, 'job started');
  const durationMs = job.startedAt === null || job.completedAt === null ? null : Math.round((job.completedAt - job.startedAt) / 1000);
  logger.info({ ...fields, status: job.status, durationMs, ...(job.error ? { error: cut(job.error) } : {}) }, `job ${job.status}`);
}

function logReplica(logger: Logger, event: ReplicaEvent): void {
  const fields = { versionId: event.versionId, replicaId: event.replicaId };
  switch (event.what) {
    case 'started':
    case 'ready':
      return logger.info({ ...fields, gpu: event.gpuIndex }, event.what === 'started' ? 'replica starting' : 'replica ready');
    case 'setup_failed':
      return logger.warn({ ...fields, error: cut(event.error) }, 'replica setup failed');
    case 'exited':
      return logger.info({ ...fields, exitCode: event.exitCode, signal: event.signal }, 'replica stopped');
    case 'crashed':
      return logger.warn({ ...fields, exitCode: event.exitCode, signal: event.signal }, 'replica crashed');
  }
}

function cut(text: string): string {
  return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text;
}

/** A webhook URL may carry a token in its path or query: the log names its host only. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}
