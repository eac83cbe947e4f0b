import { GetCommand, paginateQuery, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ChildJob, JobOutput, JobPatch, JobRecord, JobStatus, RestartEntry } from '../../../domain/job.js';
import { cappedJobError } from '../../../domain/jobError.js';
import type { ActiveJobCounts, JobFilter, JobStore, Page } from '../../../ports/store.js';
import { ifConditionHolds, writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { placeholders } from './expressionValues.js';
import { getItem } from './itemReads.js';
import { itemsForAnswer } from './outputReads.js';
import { inlinedBySize, inputsPreview, jsonBytes, type ListedOutput } from '../../../domain/listPreview.js';
import { spillableDataOf, withSpillableData } from './jsonData.js';
import { collect, pageSizeFor, queryItems, scanItems } from './pagedItems.js';
import { sortableKey, sortableRange } from './sortableKey.js';
import { ERROR_SPILL_OVER_BYTES, spillAttributeOf, type SpillableText, type Spiller } from './spill.js';
import {
  ACTIVE_BY_ORGANIZATION_INDEX,
  BY_FUNCTION_INDEX,
  BY_ORGANIZATION_INDEX,
  BY_PARENT_INDEX,
  BY_VERSION_INDEX,
  QUEUED_BY_VERSION_INDEX,
  QUEUED_INDEX,
} from './tables.js';

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

type FixedFields = Omit<JobRecord, PatchField | 'attempts'>;

/**
 * Spill thresholds that keep an item within 400 KB: inputs, the rest of the record, the preview
 * (at most LIST_INLINE_BYTES of values) and the error (ERROR_SPILL_OVER_BYTES), together.
 */
const INPUTS_SPILL_OVER_BYTES = 192 * 1024;
const DATA_SPILL_OVER_BYTES = 64 * 1024;

/** What a list reads of a job's item: everything but its inputs. */
const LISTED_ATTRIBUTES = [
  'data',
  'data_spill',
  'inputs_preview',
  'status',
  'started_at',
  'completed_at',
  'error',
  'error_spill',
  'run_id',
  'restarts',
  'attempts',
];
/** A query's projection of LISTED_ATTRIBUTES (`#status` among its names, for a filter to use). */
const LISTED_PROJECTION = {
  ProjectionExpression: LISTED_ATTRIBUTES.map((attribute) => `#${attribute}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(LISTED_ATTRIBUTES.map((attribute) => [`#${attribute}`, attribute])),
};

const attributeValue = <K extends PatchField>(field: K, value: JobPatch[K]) => (field === 'restarts' ? JSON.stringify(value) : value);

/** Shards of the queued index: pushes spread over this many index partitions. */
const QUEUED_SHARDS = 8;

/** A job's shard of the queued index, from its id (fixed for the job's life). */
export function queuedShardOf(jobId: string): string {
  let hash = 0;
  for (let index = 0; index < jobId.length; index++) hash = (hash * 31 + jobId.charCodeAt(index)) >>> 0;
  return `q${hash % QUEUED_SHARDS}`;
}

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
    ...(isActive(status) ? { active_organization: job.organizationId } : {}),
  };
  const item = await withSpillableData(spill, job.id, attributes, fixed, DATA_SPILL_OVER_BYTES);
  return { item: item.attributes, spilledKeys: [item.spilledKey, errorText.spilledKey, inputsText.spilledKey] };
}

const hasOwnInputs = (item: Item) => 'inputs' in item || spillAttributeOf('inputs') in item;

/** The job of a full item; `inputs` read from their attribute (or, in an older item, from `data`). */
const toJob = async (spill: Spiller, item: Item): Promise<JobRecord> => {
  const job = await toListedJob(spill, item);
  return hasOwnInputs(item) ? { ...job, inputs: JSON.parse(await spill.read(item, 'inputs')) as JobRecord['inputs'] } : job;
};

/** The job of an item as a list reads it (LISTED_ATTRIBUTES): inputs are their preview. */
const toListedJob = async (spill: Spiller, item: Item): Promise<JobRecord> => ({
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
    ...(endsActive ? ['active_organization'] : []),
  ];
  if (error) Object.assign(set, { error: '' }, error.attributes);
  if (entersQueued) set.queued_shard = queuedShardOf(id);
  const values = placeholders('value', Object.values(set));
  const statuses = placeholders('from', from);
  const sets = Object.keys(set).map((attribute, index) => `#${attribute} = ${values.names[index]}`);
  if (entersQueued) sets.push('queued_version = version_id');
  if (becomesActive) sets.push('active_organization = organization_id');
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

const oldestFirst = (a: JobRecord, b: JobRecord) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

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

  /**
   * One index's jobs under `key`, newest first, of the filter's organization and status.
   * The filters apply after DynamoDB reads a page, so pages are read until limit + offset jobs
   * passed. The organization filter rarely drops a job of a function (or version): those pages
   * are sized to the window; a status filter may drop most, so it reads full pages.
   */
  const newestFirst = async (IndexName: string, key: { attribute: string; value: string }, filter: JobFilter, page: Page) => {
    const conditions: string[] = [];
    const values: Item = { ':key': key.value };
    if (key.attribute !== 'organization_id') {
      conditions.push('organization_id = :organization');
      values[':organization'] = filter.organizationId;
    }
    if (filter.status !== undefined) {
      conditions.push('#status = :status');
      values[':status'] = filter.status;
    }
    const items = queryItems(context, {
      TableName,
      IndexName,
      KeyConditionExpression: `${key.attribute} = :key`,
      FilterExpression: conditions.length > 0 ? conditions.join(' AND ') : undefined,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      Limit: filter.status === undefined ? pageSizeFor(page) : undefined,
      ...LISTED_PROJECTION,
    });
    return Promise.all((await collect(items, page)).map((item) => toListedJob(spill, item)));
  };

  return {
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
    async listByFunction(functionId, filter, page) {
      return newestFirst(BY_FUNCTION_INDEX, { attribute: 'function_id', value: functionId }, filter, page);
    },
    async listByVersion(versionId, filter, page) {
      return newestFirst(BY_VERSION_INDEX, { attribute: 'version_id', value: versionId }, filter, page);
    },
    async listByOrganization(filter, page) {
      return newestFirst(BY_ORGANIZATION_INDEX, { attribute: 'organization_id', value: filter.organizationId }, filter, page);
    },
    async countActive(organizationId) {
      const counts: ActiveJobCounts = { queued: 0, processing: 0 };
      for (const status of ['queued', 'processing'] as const) {
        const pages = paginateQuery(
          { client: context.client },
          {
            TableName,
            IndexName: ACTIVE_BY_ORGANIZATION_INDEX,
            KeyConditionExpression: 'active_organization = :organization',
            FilterExpression: '#status = :status',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':organization': organizationId, ':status': status },
            Select: 'COUNT',
          },
        );
        for await (const page of pages) counts[status] += page.Count ?? 0;
      }
      return counts;
    },
    async listCreatedBetween(organizationId, from, to) {
      if (to <= from) return [];
      const range = sortableRange(BigInt(Math.max(0, Math.ceil(from))), BigInt(Math.ceil(to)) - 1n);
      const items = queryItems(context, {
        TableName,
        IndexName: BY_ORGANIZATION_INDEX,
        KeyConditionExpression: 'organization_id = :organization AND created_key BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':organization': organizationId, ':from': range.from, ':to': range.to },
      });
      return toJobs(await collect(items));
    },
    async listChildren(parentJobId) {
      const items = queryItems(context, {
        TableName,
        IndexName: BY_PARENT_INDEX,
        KeyConditionExpression: 'parent_job_id = :parent',
        ExpressionAttributeValues: { ':parent': parentJobId },
        ...LISTED_PROJECTION,
      });
      return Promise.all((await collect(items)).map((item) => toListedJob(spill, item)));
    },
    async listChildSummaries(parentJobId, limit) {
      const items = queryItems(context, {
        TableName,
        IndexName: BY_PARENT_INDEX,
        KeyConditionExpression: 'parent_job_id = :parent',
        ExpressionAttributeValues: { ':parent': parentJobId },
        // The record's fixed fields (data) name its function; the inputs and error are left out.
        ProjectionExpression: 'id, #status, #data, #data_spill',
        ExpressionAttributeNames: { '#status': 'status', '#data': 'data', '#data_spill': spillAttributeOf('data') },
        Limit: pageSizeFor({ limit }),
      });
      return Promise.all(
        (await collect(items, { limit })).map(async (item): Promise<ChildJob> => {
          const { createdAt, ownerName, functionName } = await spillableDataOf<FixedFields>(spill, item);
          return { id: item.id as string, status: item.status as JobStatus, createdAt, ownerName, functionName };
        }),
      );
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
    async listQueuedByVersion(versionId) {
      const items = queryItems(context, {
        TableName,
        IndexName: QUEUED_BY_VERSION_INDEX,
        KeyConditionExpression: 'queued_version = :version',
        ExpressionAttributeValues: { ':version': versionId },
      });
      return toJobs(await collect(items));
    },
    async listQueuedBefore(createdBefore, limit) {
      // Each shard's oldest `limit`, merged: the oldest `limit` of all.
      const shards = Array.from({ length: QUEUED_SHARDS }, (_, shard) => `q${shard}`);
      const lists = await Promise.all(
        shards.map(async (shard) => {
          const items = queryItems(context, {
            TableName,
            IndexName: QUEUED_INDEX,
            KeyConditionExpression: 'queued_shard = :shard AND created_key < :before',
            ExpressionAttributeValues: { ':shard': shard, ':before': sortableKey(createdBefore, '') },
            Limit: pageSizeFor({ limit }),
          });
          return toJobs(await collect(items, { limit }));
        }),
      );
      return lists.flat().sort(oldestFirst).slice(0, Math.max(0, limit));
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
