/**
 * Every DynamoDB table the store uses, as plain data: the tests create tables on dynalite
 * from it and the CDK data stack creates the real ones from it, so the two cannot drift.
 * Kept free of aws-cdk-lib so the Lambda bundles that import it stay small.
 */
export type KeyType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: KeyType;
}

/**
 * What an index holds besides the keys: KEYS_ONLY (the table's and the index's keys), or the
 * keys and the listed attributes. An index write costs units of its entry's size, so each index
 * holds exactly what its queries read; queries that need whole items read the keys here, then
 * the items by key (batchReads.ts). DynamoDB cannot change a projection in place: a change
 * needs a new index name (docs/deploying-to-aws.md, "Upgrading to narrow indexes").
 */
export type IndexProjection = { type: 'KEYS_ONLY' } | { type: 'INCLUDE'; attributes: readonly string[] };

/** A global secondary index. */
export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  projection: IndexProjection;
}

export interface TableDefinition {
  /** The table's name is the deployment's prefix followed by this. */
  nameSuffix: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalSecondaryIndexes: IndexDefinition[];
  /** An epoch-seconds attribute after which DynamoDB deletes the item. */
  timeToLiveAttribute?: string;
}

const text = (name: string): KeyAttribute => ({ name, type: 'S' });
const KEYS_ONLY: IndexProjection = { type: 'KEYS_ONLY' };
const including = (...attributes: string[]): IndexProjection => ({ type: 'INCLUDE', attributes });

/**
 * What a list reads of a job's item (jobStore.ts projects exactly these): everything but its
 * inputs, whose list preview is `inputs_preview`.
 */
export const JOB_LISTED_ATTRIBUTES = [
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
] as const;

// `_v2`: these replaced indexes that projected every attribute (a projection cannot change in place).
export const BY_ID_INDEX = 'by_id_v2';
export const BY_ORGANIZATION_INDEX = 'by_organization_v2';
export const BY_FUNCTION_INDEX = 'by_function_v2';
export const BY_VERSION_INDEX = 'by_version_v2';
export const BY_PARENT_INDEX = 'by_parent_v2';
export const BY_JOB_INDEX = 'by_job_v2';
export const PENDING_INDEX = 'pending_v2';
export const BY_BUILD_STATUS_INDEX = 'by_build_status_v2';
export const QUEUED_BY_VERSION_INDEX = 'queued_by_version_v2';
export const QUEUED_INDEX = 'queued_v2';
export const ACTIVE_BY_ORGANIZATION_INDEX = 'active_by_organization_v2';
export const OVERDUE_INDEX = 'overdue_v2';

export const ORGANIZATIONS_TABLE: TableDefinition = {
  nameSuffix: 'organizations',
  // The name is the key so that a conditional put makes it unique.
  partitionKey: text('name'),
  // getById reads the whole organization, a few small attributes: one index read, no fetch back.
  globalSecondaryIndexes: [{ indexName: BY_ID_INDEX, partitionKey: text('id'), projection: including('created_at', 'webhook_secret') }],
};

/**
 * What marking an organization's budget.warning sent touches (organizationStore.ts
 * markBudgetWarned): its key, the id its condition checks, and the mark. The roles that end
 * jobs may update these and no other (infra/grants.ts).
 */
export const BUDGET_MARK_ATTRIBUTES = ['name', 'id', 'budget_warned_month'];

export const API_KEYS_TABLE: TableDefinition = {
  nameSuffix: 'api_keys',
  // Every request authenticates by hash, so the hash is the key.
  partitionKey: text('hash'),
  globalSecondaryIndexes: [
    // An organization's keys, listed whole (small items).
    {
      indexName: BY_ORGANIZATION_INDEX,
      partitionKey: text('organization_id'),
      sortKey: { name: 'created_at', type: 'N' },
      projection: including('id', 'prefix', 'revoked_at'),
    },
    // revoke reads the key's hash (the table key) and nothing else.
    { indexName: BY_ID_INDEX, partitionKey: text('id'), projection: KEYS_ONLY },
  ],
};

export const FUNCTIONS_TABLE: TableDefinition = {
  nameSuffix: 'functions',
  // owner + name is unique and an owner's functions list by name.
  partitionKey: text('owner_name'),
  sortKey: text('name'),
  // getById reads the record (data): one index read, no fetch back; functions are rarely written.
  globalSecondaryIndexes: [{ indexName: BY_ID_INDEX, partitionKey: text('id'), projection: including('data') }],
};

export const VERSIONS_TABLE: TableDefinition = {
  nameSuffix: 'versions',
  partitionKey: text('id'),
  globalSecondaryIndexes: [
    // created_key orders by creation time, then id, like the SQLite adapter's ORDER BY.
    // Lists read whole versions (every attribute toVersion reads must be here), a page at a time:
    // one index read beats a fetch back per version, and versions are written a handful of times.
    {
      indexName: BY_FUNCTION_INDEX,
      partitionKey: text('function_id'),
      sortKey: text('created_key'),
      projection: including(
        'data',
        'build_status',
        'built_at',
        'ready_at',
        'build_error',
        'task_failures',
        'capacity_shortage',
        'minimum_replicas',
        'maximum_replicas',
        'scaledown_window_s',
        'buffer_replicas',
      ),
    },
    // Builds by status, oldest first: the sweeper's versions stuck in queued. Versions are few
    // and move a handful of times each, so a status as partition key is not hot. Keys only: the
    // sweeper reads the few it finds by key, and each move rewrites a small entry.
    { indexName: BY_BUILD_STATUS_INDEX, partitionKey: text('build_status'), sortKey: text('created_key'), projection: KEYS_ONLY },
  ],
};

export const LOGS_TABLE: TableDefinition = {
  nameSuffix: 'logs',
  // time_key orders by time_ns, then by a suffix that keeps equal times distinct.
  partitionKey: text('stream'),
  sortKey: text('time_key'),
  // An organization's lines are read whole (all but expires_at): a line is small, so a fetch back
  // per line would cost more than the entry it saves.
  globalSecondaryIndexes: [
    {
      indexName: BY_ORGANIZATION_INDEX,
      partitionKey: text('organization_id'),
      sortKey: text('time_key'),
      projection: including('function_id', 'job_id', 'run_id', 'stage', 'message'),
    },
  ],
  timeToLiveAttribute: 'expires_at',
};

export const JOBS_TABLE: TableDefinition = {
  nameSuffix: 'jobs',
  partitionKey: text('id'),
  // created_key orders by creation time, then id, like the SQLite adapter's ORDER BY; lists
  // read the indexes backwards for newest first. A job with no parent has no parent_job_id
  // attribute, so by_parent holds child jobs only.
  //
  // The lists hold JOB_LISTED_ATTRIBUTES, never the inputs (up to 192 KB inline): a job's entry
  // stays about 1 KB, one write unit per move, and a page of 10 is one read of a few units, where
  // a fetch back would read each whole item. by_function and by_version add organization_id,
  // which their lists filter on.
  globalSecondaryIndexes: [
    {
      indexName: BY_FUNCTION_INDEX,
      partitionKey: text('function_id'),
      sortKey: text('created_key'),
      projection: including(...JOB_LISTED_ATTRIBUTES, 'organization_id'),
    },
    {
      indexName: BY_VERSION_INDEX,
      partitionKey: text('version_id'),
      sortKey: text('created_key'),
      projection: including(...JOB_LISTED_ATTRIBUTES, 'organization_id'),
    },
    // organization_shard is the organization's id and one of a few shards (jobShards.ts), so one
    // organization's pushes spread over that many index partitions; lists merge the shards.
    {
      indexName: BY_ORGANIZATION_INDEX,
      partitionKey: text('organization_shard'),
      sortKey: text('created_key'),
      projection: including(...JOB_LISTED_ATTRIBUTES),
    },
    { indexName: BY_PARENT_INDEX, partitionKey: text('parent_job_id'), sortKey: text('created_key'), projection: including(...JOB_LISTED_ATTRIBUTES) },
    // Sparse: only a queued job has queued_version (its version id) and queued_shard, so these
    // hold the queued jobs alone. By version: the jobs that waited for a build, released when it
    // ends. By shard (one of a few, so pushes do not all write one index partition): the
    // sweeper's oldest queued jobs, whose queue message may have expired. Keys only: both are
    // read rarely and then need whole jobs, read by key, while every push writes them.
    { indexName: QUEUED_BY_VERSION_INDEX, partitionKey: text('queued_version'), sortKey: text('created_key'), projection: KEYS_ONLY },
    { indexName: QUEUED_INDEX, partitionKey: text('queued_shard'), sortKey: text('created_key'), projection: KEYS_ONLY },
    // Sparse: only a queued or processing job has active_shard (its organization_shard): an
    // organization's unfinished jobs, counted by status for its concurrency without reading its
    // history. The status is all a count reads.
    { indexName: ACTIVE_BY_ORGANIZATION_INDEX, partitionKey: text('active_shard'), sortKey: text('created_key'), projection: including('status') },
  ],
};

export const JOB_OUTPUTS_TABLE: TableDefinition = {
  nameSuffix: 'job_outputs',
  // A job's outputs in index order; the key makes one output per (job, index).
  partitionKey: text('job_id'),
  sortKey: { name: 'idx', type: 'N' },
  globalSecondaryIndexes: [],
};

export const WEBHOOK_DELIVERIES_TABLE: TableDefinition = {
  nameSuffix: 'webhook_deliveries',
  partitionKey: text('id'),
  // Every read of deliveries needs whole ones (the payload, up to 300 KB inline, and the
  // attempts), and each attempt rewrites the item: the indexes hold keys only, so an attempt
  // rewrites no index entry but the overdue one's small key, and reads fetch the items by key.
  globalSecondaryIndexes: [
    // job_key orders a job's deliveries by URL, then sequence.
    { indexName: BY_JOB_INDEX, partitionKey: text('job_id'), sortKey: text('job_key'), projection: KEYS_ONLY },
    // Sparse: only a pending delivery has pending_shard (one of a few, so the backlog is not one
    // index partition) and pending_key (creation time, then sequence), so the index holds the
    // backlog alone. Readers merge the shards.
    { indexName: PENDING_INDEX, partitionKey: text('pending_shard'), sortKey: text('pending_key'), projection: KEYS_ONLY },
    // The same backlog by when the next attempt is due (due_key: next_attempt_at, then id): the
    // sweeper's overdue deliveries.
    { indexName: OVERDUE_INDEX, partitionKey: text('pending_shard'), sortKey: text('due_key'), projection: KEYS_ONLY },
  ],
};

export const USAGE_JOBS_TABLE: TableDefinition = {
  nameSuffix: 'usage_jobs',
  // One marker per job whose usage was counted: a conditional put on it counts a job once.
  partitionKey: text('job_id'),
  globalSecondaryIndexes: [],
};

export const USAGE_HOURS_TABLE: TableDefinition = {
  nameSuffix: 'usage_hours',
  // An organization's aggregates; usage_key is the zero-padded hour, then version and billing
  // class, so a range of hours is one key range.
  partitionKey: text('organization_id'),
  sortKey: text('usage_key'),
  globalSecondaryIndexes: [],
};

export const IDEMPOTENCY_KEYS_TABLE: TableDefinition = {
  nameSuffix: 'idempotency_keys',
  // Keys are per organization: the pair is the key, so a conditional put claims it.
  partitionKey: text('organization_id'),
  sortKey: text('key'),
  globalSecondaryIndexes: [],
  // DynamoDB deletes expired keys within a day or two; until then a claim replaces them (expires_at).
  timeToLiveAttribute: 'ttl',
};

export const PAGE_ENDS_TABLE: TableDefinition = {
  nameSuffix: 'page_ends',
  // Where pages of a job list ended, by the offset each handed out: a list's ends are one key
  // range, so the nearest below an offset is one query.
  partitionKey: text('list'),
  sortKey: { name: 'offset', type: 'N' },
  globalSecondaryIndexes: [],
  timeToLiveAttribute: 'ttl',
};

export const TABLES = {
  organizations: ORGANIZATIONS_TABLE,
  apiKeys: API_KEYS_TABLE,
  functions: FUNCTIONS_TABLE,
  versions: VERSIONS_TABLE,
  logs: LOGS_TABLE,
  jobs: JOBS_TABLE,
  jobOutputs: JOB_OUTPUTS_TABLE,
  deliveries: WEBHOOK_DELIVERIES_TABLE,
  usageJobs: USAGE_JOBS_TABLE,
  usageHours: USAGE_HOURS_TABLE,
  idempotencyKeys: IDEMPOTENCY_KEYS_TABLE,
  pageEnds: PAGE_ENDS_TABLE,
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof TABLES;

export function tableName(tablePrefix: string, table: TableDefinition): string {
  return `${tablePrefix}${table.nameSuffix}`;
}
