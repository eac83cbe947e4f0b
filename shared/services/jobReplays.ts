import { unprocessable } from '../domain/errors.js';
import type { JobRecord, PushSource } from '../domain/job.js';
import { MAX_LISTED_REPLAYS, pushedEnvironment, pushedTimeout, uploadsNamed } from '../domain/replay.js';
import { UPLOAD_KEPT_DAYS } from '../domain/upload.js';
import type { VersionRecord } from '../domain/version.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Store } from '../ports/store.js';
import type { JobPushes, PushBody } from './jobPushes.js';
import { readOwnJob } from './ownJob.js';
import type { Principal } from './principal.js';

/** A version that declares nothing: what a replay assumes of an original version no longer stored. */
const NO_DEFAULTS: Pick<VersionRecord, 'environmentVariables' | 'timeoutSeconds' | 'inputs'> = { environmentVariables: [], timeoutSeconds: null, inputs: [] };

export interface JobReplaysDeps {
  store: Store;
  pushes: JobPushes;
  artifacts: Artifacts;
}

/**
 * Replays (docs/api.md, "Replay"): a job pushed again, by its own organization, with what its
 * original push asked for, through the normal push (validation, budgets, backpressure), then
 * linked both ways: the new job's `replayOf`, the original's `replays`.
 */
export class JobReplays {
  constructor(private readonly deps: JobReplaysDeps) {}

  /** `version`: `latest` (the newest that can run), a version id or slug; absent, the original's own version. */
  async replay(principal: Principal, jobId: string, version: string | undefined, source: PushSource): Promise<{ job: JobRecord; version: VersionRecord }> {
    const { store, pushes } = this.deps;
    const original = await readOwnJob(store, principal, jobId);
    const originalVersion = (await store.versions.get(original.versionId)) ?? NO_DEFAULTS;
    await this.assertUploadsKept(original, originalVersion);
    const fn = `${original.ownerName}/${original.functionName}`;
    const target = version === undefined ? { id: original.versionId } : { function: version === 'latest' ? fn : `${fn}:${version}` };
    const body: PushBody = {
      ...target,
      inputs: original.inputs,
      // What the push asked for, not what the original version added: another version brings its own defaults.
      env: pushedEnvironment(original, originalVersion),
      timeout: pushedTimeout(original, originalVersion),
      // The webhooks the original notified (its push's, or its function's then), so the same receivers hear of the replay.
      webhooks: original.webhooks,
      priority: original.priority,
      start_timeout: original.startTimeoutSeconds,
      retries: original.maxRetries,
      replayOf: original.id,
    };
    const pushed = await pushes.push(principal, body, source);
    await store.jobs.addReplay(original.id, pushed.job.id, MAX_LISTED_REPLAYS);
    return pushed;
  }

  /**
   * Uploads are not used up by a job, but they are deleted a day after they were sent: a replay
   * whose file is gone is refused before anything is written, rather than failing when it runs.
   */
  private async assertUploadsKept(job: JobRecord, version: Pick<VersionRecord, 'inputs'>): Promise<void> {
    for (const { input, uploadId } of uploadsNamed(job.inputs, version)) {
      if ((await this.deps.artifacts.uploadSize(job.organizationId, uploadId)) !== null) continue;
      throw unprocessable(
        `Input ${input} was an uploaded file (upload ${uploadId}), and uploads are kept ${UPLOAD_KEPT_DAYS} day: it is gone. Upload the file again (POST /v2/uploads) and push the job with it.`,
      );
    }
  }
}
