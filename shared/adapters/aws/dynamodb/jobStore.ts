import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { JobOutput, JobPatch, JobRecord, JobStatus } from '../../../domain/job.js';
import { cappedJobError } from '../../../domain/jobError.js';
import type { JobStore } from '../../../ports/store.js';
import { ifConditionHolds, writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { placeholders } from './expressionValues.js';
import { getItem } from './itemReads.js';
import { organizationShardOf, QUEUED_BASE, QUEUED_SHARDS, oldestFirst, toJob } from './jobItems.js';
import { dynamoDbJobLists } from './jobLists.js';
import { itemsForAnswer } from './outputReads.js';
import { inlinedBySize, inputsPreview, jsonBytes, type ListedOutput } from '../../../domain/listPreview.js';
import { spillableDataOf, withSpillableData } from './jsonData.js';
import { collect, pageSizeFor, queryItems, scanItems } from './pagedItems.js';
import { sortableKey } from './sortableKey.js';
import { ERROR_SPILL_OVER_BYTES, spillAttributeOf, type SpillableText, type Spiller } from './spill.js';

/**
 * The fields a transition may change live in attributes of their own, so that a transition is
 * one conditional UpdateItem; the rest of the record never changes and is kept as JSON in
 * `data`. `restarts` is JSON text too, to round-trip exactly as the SQLite adapter does.
 * `inputs` (of any size) have an attribute of their own beside their list preview
 * (listPreview.ts), so that a list reads the preview and never the inputs; `inputs`, `data` and
 * `error` spill to S3 when an item could not hold them (spill.ts); reads resolve them. An error is
 * cut to MAX_JOB_ERROR_BYTES when written (jobError.ts), so only items written before that spill one. Items written before inputs moved out keep them in `data`.
 */
type PatchField = Exclude<keyof JobPatch, 'countAttempt'>;
const PATCHABLE: Record<PatchField, string> = {
  status: 'status',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  error: 'error',
  runId: 'run_id',
  restarts: 'restarts',
};
const PATCHABLE_FIELDS = Object.keys(PATCHABLE) as PatchField[];

/**
 * Spill thresholds that keep an item within 400 KB: inputs, the rest of the record, the preview
 * (at most LIST_INLINE_BYTES of values) and the error (ERROR_SPILL_OVER_BYTES), together.
 */
const INPUTS_SPILL_OVER_BYTES = 192 * 1024;
const DATA_SPILL_OVER_BYTES = 64 * 1024;

const attributeValue = <K extends PatchField>(field: K, value: JobPatch[K]) => (field === 'restarts' ? JSON.stringify(value) : value);

/** A job's shard of the queued index, from its id (fixed for the job's life). */
const queuedShardOf = (jobId: string) => QUEUED_SHARDS.of(QUEUED_BASE, jobId);

/** The sparse attributes that put a queued job, and only a queued job, in the queued indexes. */
const queuedAttributes = (job: Pick<JobRecord, 'id' | 'versionId'>): Item => ({ queued_version: job.versionId, queued_shard: queuedShardOf(job.id) });

/** Queued and processing jobs, and only those, are in the active index (by organization). */
const isActive = (status: JobStatus) => status === 'queued' || status === 'processing';

async function toItem(spill: Spiller, job: JobRecord) {
  const { status, startedAt, completedAt, error, runId, restarts, attempts, inputs, ...fixed } = job;
  const errorText = await spill.write('error', cappedJobError(error), job.id, ERROR_SPILL_OVER_BYTES);
  const inputsText = await spill.write('inputs', JSON.stringify(inputs), job.id, INPUTS_SPILL_OVER_BYTES);
  const attributes: Item = {
    id: job.id,
    function_id: job.functionId,
    version_id: job.versionId,
    organization_id: job.organizationId,
    organization_shard: organizationShardOf(job.organizationId, job.id),
    // An index key attribute may not be null: a job with no parent has none, and stays out of by_parent.
    ...(job.parentJobId === null ? {} : { parent_job_id: job.parentJobId }),
    created_key: sortableKey(job.createdAt, job.id),
    status,
    started_at: startedAt,
    completed_at: completedAt,
    ...errorText.attributes,
    ...inputsText.attributes,
    inputs_preview: JSON.stringify(inputsPreview(inputs)),
    run_id: runId,
    restarts: attributeValue('restarts', restarts),
    attempts,
    ...(status === 'queued' ? queuedAttributes(job) : {}),
    ...(isActive(status) ? { active_shard: organizationShardOf(job.organizationId, job.id) } : {}),
  };
  const item = await withSpillableData(spill, job.id, attributes, fixed, DATA_SPILL_OVER_BYTES);
  return { item: item.attributes, spilledKeys: [item.spilledKey, errorText.spilledKey, inputsText.spilledKey] };
}

/**
 * Every attribute is named through a placeholder: `status` is a reserved word. A patch's error
 * comes as spill.write made it: inline text, or a pointer to its spilled copy beside an empty
 * `error`; the pointer of an inline one is removed, so the item never reads a stale copy. A move
 * into queued adds the queued index attributes (the version's id copied from its own attribute),
 * a move out of it removes them; likewise the active index's attribute for queued and processing.
 */
function transitionUpdate(id: string, from: readonly JobStatus[], patch: JobPatch, error: SpillableText | undefined) {
  const set: Item = {};
  for (const field of PATCHABLE_FIELDS) if (field !== 'error' && patch[field] !== undefined) set[PATCHABLE[field]] = attributeValue(field, patch[field]);
  const entersQueued = patch.status === 'queued';
  const leavesQueued = patch.status !== undefined && !entersQueued;
  const becomesActive = patch.status !== undefined && isActive(patch.status);
  const endsActive = patch.status !== undefined && !becomesActive;
  const removed = [
    ...(error?.spilledKey === null ? [spillAttributeOf('error')] : []),
    ...(leavesQueued ? ['queued_version', 'queued_shard'] : []),
    ...(endsActive ? ['active_shard'] : []),
  ];
  if (error) Object.assign(set, { error: '' }, error.attributes);
  if (entersQueued) set.queued_shard = queuedShardOf(id);
  const values = placeholders('value', Object.values(set));
  const statuses = placeholders('from', from);
  const sets = Object.keys(set).map((attribute, index) => `#${attribute} = ${values.names[index]}`);
  if (entersQueued) sets.push('queued_version = version_id');
  // The job's organization shard, copied from its item; an item written before shards has
  // none, and is kept under its organization's id (which no count reads) rather than refused.
  if (becomesActive) sets.push('active_shard = if_not_exists(organization_shard, organization_id)');
  if (patch.countAttempt) sets.push('attempts = attempts + :one');
  const names = Object.fromEntries([...Object.keys(set), ...removed].map((attribute) => [`#${attribute}`, attribute]));
  const removal = removed.length > 0 ? ` REMOVE ${removed.map((attribute) => `#${attribute}`).join(', ')}` : '';
  return {
    // An empty patch still checks the guard: SET of the status to itself changes nothing.
    UpdateExpression: `SET ${sets.length > 0 ? sets.join(', ') : '#status = #status'}${removal}`,
    ConditionExpression: `#status IN (${statuses.names.join(', ')})`,
    ExpressionAttributeNames: { ...names, '#status': 'status' },
    ExpressionAttributeValues: { ...values.bound, ...statuses.bound, ...(patch.countAttempt ? { ':one': 1 } : {}) },
  };
}

/** An output's item: its data's size and the output without its data (head) beside it, for lists. */
const toOutputItem = (spill: Spiller, output: JobOutput) => {
  const { data, ...head } = output;
  return withSpillableData(spill, output.jobId, { job_id: output.jobId, idx: output.index, bytes: jsonBytes(data), head: JSON.stringify(head) }, output);
};

export function dynamoDbJobStore(context: DynamoDbContext): JobStore {
  const TableName = context.tables.jobs;
  const OutputsTableName = context.tables.jobOutputs;
  const { spill } = context;
  const toJobs = (items: Item[]) => Promise.all(items.map((item) => toJob(spill, item)));

  return {
    ...dynamoDbJobLists(context),
    async create(job) {
      const { item, spilledKeys } = await toItem(spill, job);
      // A duplicate id is refused (it throws), as a primary key would.
      await spill.writeItem(spilledKeys, () => context.client.send(new PutCommand({ TableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' })));
    },
    async get(id) {
      const item = await getItem(context, TableName, { id });
      return item ? toJob(spill, item) : null;
    },
    async statusOf(id) {
      // One attribute, still consistent: a poll costs one read unit, however large the job's item.
      const { Item: item } = await context.client.send(
        new GetCommand({ TableName, Key: { id }, ConsistentRead: true, ProjectionExpression: '#status', ExpressionAttributeNames: { '#status': 'status' } }),
      );
      return item ? (item.status as JobStatus) : null;
    },
    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const error = patch.error === undefined ? undefined : await spill.write('error', cappedJobError(patch.error), id, ERROR_SPILL_OVER_BYTES);
      const update = transitionUpdate(id, from, patch, error);
      // An error replaced later leaves its spilled copy behind: rare (a long traceback, then another), and only storage.
      const spilledKey = error?.spilledKey ?? null;
      const output = await spill.writeItem([spilledKey], () =>
        ifConditionHolds(() => context.client.send(new UpdateCommand({ TableName, Key: { id }, ReturnValues: 'ALL_NEW', ...update }))),
      );
      if (!output?.Attributes) {
        await spill.discard(spilledKey);
        return null;
      }
      return toJob(spill, output.Attributes);
    },
    async addReplay(id, replayId, keep) {
      // `replays` is an attribute of its own, appended in place: replays made at once never lose one another.
      const appended = await ifConditionHolds(() =>
        context.client.send(
          new UpdateCommand({
            TableName,
            Key: { id },
            UpdateExpression: 'SET replays = list_append(if_not_exists(replays, :none), :replay)',
            ConditionExpression: 'attribute_exists(id)',
            ExpressionAttributeValues: { ':none': [], ':replay': [replayId] },
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
      );
      // Cut from the front one at a time, each only while more than `keep` remain: cuts racing each other never go below it.
      for (let length = (appended?.Attributes?.replays as unknown[] | undefined)?.length ?? 0; length > keep; length--) {
        await writeIf(() =>
          context.client.send(
            new UpdateCommand({
              TableName,
              Key: { id },
              UpdateExpression: 'REMOVE replays[0]',
              ConditionExpression: 'size(replays) > :keep',
              ExpressionAttributeValues: { ':keep': keep },
            }),
          ),
        );
      }
    },
    async listByStatus(statuses) {
      if (statuses.length === 0) return [];
      const wanted = placeholders('status', statuses);
      // Read consistently: this finds the work to resume after a restart, which must not miss a job.
      const items = scanItems(context, {
        TableName,
        ConsistentRead: true,
        FilterExpression: `#status IN (${wanted.names.join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: wanted.bound,
      });
      return (await toJobs(await collect(items))).sort(oldestFirst);
    },
    async appendOutput(output) {
      // A repeat of (job, index) fails the condition and is ignored: the first one stays.
      const { attributes, spilledKey } = await toOutputItem(spill, output);
      const written = await writeIf(() =>
        context.client.send(new PutCommand({ TableName: OutputsTableName, Item: attributes, ConditionExpression: 'attribute_not_exists(job_id)' })),
      );
      if (!written) await spill.discard(spilledKey);
    },
    async listOutputs(jobId, offset, maxBytes) {
      // Read consistently: a reader polling by offset must not see output n+1 before output n.
      const items = queryItems(context, {
        TableName: OutputsTableName,
        KeyConditionExpression: 'job_id = :job',
        ExpressionAttributeValues: { ':job': jobId },
        ConsistentRead: true,
      });
      const wanted =
        maxBytes === undefined ? await collect(items, { offset: Math.max(0, offset) }) : await itemsForAnswer(items, Math.max(0, offset), maxBytes);
      return Promise.all(wanted.map((item) => spillableDataOf<JobOutput>(spill, item)));
    },
    async listOutputPreviews(jobId, limits) {
      // Heads and sizes first; then the data of those that inline, each one item of at most LIST_INLINE_BYTES.
      const heads = await collect(
        queryItems(context, {
          TableName: OutputsTableName,
          KeyConditionExpression: 'job_id = :job',
          ExpressionAttributeValues: { ':job': jobId },
          ProjectionExpression: '#idx, #bytes, #head',
          ExpressionAttributeNames: { '#idx': 'idx', '#bytes': 'bytes', '#head': 'head' },
          ConsistentRead: true,
          Limit: pageSizeFor({ limit: limits.max }),
        }),
        { limit: limits.max },
      );
      const inline = inlinedBySize(
        heads.map((item) => (item.bytes as number | undefined) ?? Infinity),
        limits.budget,
      );
      return Promise.all(
        heads.map(async (item, index): Promise<ListedOutput> => {
          if (inline[index]) {
            const full = await getItem(context, OutputsTableName, { job_id: jobId, idx: item.idx });
            return { ...(await spillableDataOf<JobOutput>(spill, full ?? {})), omitted: false, bytes: item.bytes as number };
          }
          // An output stored before sizes were is named by its index only: a list never reads its data.
          const head =
            typeof item.head === 'string'
              ? (JSON.parse(item.head) as Omit<JobOutput, 'data'>)
              : { jobId, index: item.idx as number, runId: '', type: '', name: '' };
          return { ...head, data: null, omitted: true, bytes: (item.bytes as number | undefined) ?? null };
        }),
      );
    },
  };
}
