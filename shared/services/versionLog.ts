import type { LogStage } from '../domain/log.js';
import { versionLogStream } from '../domain/log.js';
import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { LogWriter } from './logWriter.js';

/** Lines about a version as a whole (its build, its tasks), to the version's log that `sluice deploy` and GET /v2/logs show. */
export async function appendVersionLog(store: Store, clock: Clock, version: VersionRecord, stage: LogStage, lines: string[]): Promise<void> {
  const log = new LogWriter(store.logs, clock, {
    stream: versionLogStream(version.id),
    organizationId: version.organizationId,
    functionId: version.functionId,
    jobId: '',
    runId: version.id,
    stage,
  });
  for (const line of lines) log.write(line);
  await log.flush();
}
