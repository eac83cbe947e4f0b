import type { SqliteStore } from '../shared/adapters/local/sqlite/sqliteStore.js';
import { generateApiKey, displayPrefix, hashApiKey } from '../shared/domain/apiKey.js';
import { newId, newShortId } from '../shared/domain/ids.js';
import type { JobRecord, JobStatus } from '../shared/domain/job.js';
import { jobLogStream } from '../shared/domain/log.js';
import type { Micros } from '../shared/domain/time.js';

/** What the history is grown for: the busy organization's functions and versions, as deployed. */
export interface HistoryShape {
  organizationId: string;
  ownerName: string;
  /** The busy function's two versions, and a function with 1% of the jobs. */
  busy: { functionId: string; name: string; versionIds: [string, string] };
  rare: { functionId: string; name: string; versionId: string };
}

/** Statuses as a long-running service leaves them: nearly all finished, a few errors and cancels. */
function statusOf(n: number): JobStatus {
  if (n % 200 === 7) return 'cancelled';
  if (n % 40 === 3) return 'error';
  return 'finished';
}

const HOUR_MICROS = 3_600_000_000;
/** Jobs created per turn: one group commit each, as a busy service's turns are. */
const CHUNK = 5000;

/**
 * Grows the history from `from` to `to` jobs through the store's own writes (group-committed, as
 * the service makes them): each job created in its end state with its one output, two log lines
 * and its usage, `spacingMicros` apart, ending `now`. One job in 100 is the rare function's.
 */
export async function growHistory(store: SqliteStore, shape: HistoryShape, from: number, to: number, now: Micros, spacingMicros: number): Promise<void> {
  for (let start = from; start < to; start += CHUNK) {
    const writes: Promise<unknown>[] = [];
    for (let n = start; n < Math.min(to, start + CHUNK); n++) {
      const rare = n % 100 === 50;
      const fn = rare ? shape.rare : shape.busy;
      const versionId = rare ? shape.rare.versionId : shape.busy.versionIds[n % 2];
      const createdAt = now - (to - n) * spacingMicros;
      const status = statusOf(n);
      const runId = newShortId();
      const job: JobRecord = {
        id: newId(),
        functionId: fn.functionId,
        versionId: versionId as string,
        organizationId: shape.organizationId,
        ownerName: shape.ownerName,
        functionName: fn.name,
        status,
        createdAt,
        startedAt: createdAt + 1000,
        completedAt: createdAt + 51_000,
        error: status === 'error' ? 'Traceback (most recent call last):\n  ValueError: bad input' : '',
        visibility: 'private',
        runId,
        inputs: { text: `input ${n}`, count: n },
        env: {},
        webhooks: [],
        source: 'api',
        parentJobId: null,
        restarts: [],
        attempts: 1,
        timeLimitSeconds: null,
      };
      writes.push(store.jobs.create(job));
      if (status === 'finished') writes.push(store.jobs.appendOutput({ jobId: job.id, index: 0, runId, type: 'str', name: '', data: `output ${n}` }));
      const line = (offsetNs: bigint, message: string) => ({
        stream: jobLogStream(job.id),
        organizationId: shape.organizationId,
        functionId: fn.functionId,
        jobId: job.id,
        runId,
        stage: 'run' as const,
        timeNs: BigInt(createdAt) * 1000n + offsetNs,
        message,
      });
      writes.push(store.logs.append([line(2_000_000n, `processing input ${n}`), line(40_000_000n, 'done')]));
      const hour = Math.floor(createdAt / HOUR_MICROS) * 3600;
      const increment = {
        organizationId: shape.organizationId,
        functionId: fn.functionId,
        versionId: versionId as string,
        billingClass: 'cpu' as const,
        hour,
        computeSeconds: 0.05,
        costDollars: 0.000001,
      };
      writes.push(store.usage.recordJob(job.id, increment));
    }
    await Promise.all(writes);
  }
}

/** An organization with no jobs, and its key. */
export async function createEmptyOrganization(store: SqliteStore, name: string, now: Micros): Promise<string> {
  const organization = await store.organizations.createIfAbsent({ id: newId(), name, createdAt: now, webhookSecret: null });
  const secret = generateApiKey();
  await store.apiKeys.create({
    id: newId(),
    organizationId: organization.id,
    hash: hashApiKey(secret),
    prefix: displayPrefix(secret),
    createdAt: now,
    revokedAt: null,
  });
  return secret;
}
