import type { JobPatch, JobRecord, JobStatus, RestartEntry } from '../../../domain/job.js';
import type { Item } from './context.js';
import { spillableDataOf } from './jsonData.js';
import { shards } from './shards.js';
import { spillAttributeOf, type Spiller } from './spill.js';
import { JOB_LISTED_ATTRIBUTES } from './tables.js';

/** The record's fields kept as JSON in `data`: all but those a transition may change. */
export type FixedFields = Omit<JobRecord, Exclude<keyof JobPatch, 'countAttempt'> | 'attempts'>;

/** A query's projection of JOB_LISTED_ATTRIBUTES (`#status` among its names, for a filter to use). */
export const LISTED_PROJECTION = {
  ProjectionExpression: JOB_LISTED_ATTRIBUTES.map((attribute) => `#${attribute}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(JOB_LISTED_ATTRIBUTES.map((attribute) => [`#${attribute}`, attribute])),
};

/** The queued index's shards: pushes spread over this many index partitions. */
export const QUEUED_SHARDS = shards(8);
export const QUEUED_BASE = 'q';

/**
 * An organization's shards of the by-organization and active indexes. A shard's partition takes
 * 1,000 write units a second, about 300 jobs (a push and two moves of a ~1 KB entry); 4 shards
 * allow ~1,200 jobs a second per organization while a page reads 4 queries, not 8.
 */
const ORGANIZATION_SHARDS = shards(4);

/** A job's shard of its organization's indexes, `<organization id>#<n>`, from its id (fixed for its life). */
export const organizationShardOf = (organizationId: string, jobId: string) => ORGANIZATION_SHARDS.of(`${organizationId}#`, jobId);

/** Every shard of an organization's indexes. */
export const organizationShards = (organizationId: string) => ORGANIZATION_SHARDS.all(`${organizationId}#`);

/** The job of an item as a list reads it (JOB_LISTED_ATTRIBUTES): inputs are their preview. */
export const toListedJob = async (spill: Spiller, item: Item): Promise<JobRecord> => ({
  ...(await spillableDataOf<FixedFields>(spill, item)),
  ...('inputs_preview' in item ? { inputs: JSON.parse(item.inputs_preview as string) as JobRecord['inputs'] } : {}),
  status: item.status as JobStatus,
  startedAt: item.started_at as number | null,
  completedAt: item.completed_at as number | null,
  error: await spill.read(item, 'error'),
  runId: item.run_id as string | null,
  restarts: JSON.parse(item.restarts as string) as RestartEntry[],
  attempts: item.attempts as number,
});

const hasOwnInputs = (item: Item) => 'inputs' in item || spillAttributeOf('inputs') in item;

/** The job of a full item; `inputs` read from their attribute (or, in an older item, from `data`); `replays` from theirs (JobStore.addReplay). */
export const toJob = async (spill: Spiller, item: Item): Promise<JobRecord> => {
  const job = { ...(await toListedJob(spill, item)), ...(Array.isArray(item.replays) ? { replays: item.replays as string[] } : {}) };
  return hasOwnInputs(item) ? { ...job, inputs: JSON.parse(await spill.read(item, 'inputs')) as JobRecord['inputs'] } : job;
};

export const oldestFirst = (a: JobRecord, b: JobRecord) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
