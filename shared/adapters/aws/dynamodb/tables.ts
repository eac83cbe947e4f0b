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

/** A global secondary index; every index projects all attributes (one read, no fetch back). */
export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
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

export const BY_ID_INDEX = 'by_id';
export const BY_ORGANIZATION_INDEX = 'by_organization';
export const BY_FUNCTION_INDEX = 'by_function';
export const BY_VERSION_INDEX = 'by_version';
export const BY_PARENT_INDEX = 'by_parent';
export const BY_JOB_INDEX = 'by_job';
export const PENDING_INDEX = 'pending';
export const BY_BUILD_STATUS_INDEX = 'by_build_status';
export const QUEUED_BY_VERSION_INDEX = 'queued_by_version';
export const QUEUED_INDEX = 'queued';
export const ACTIVE_BY_ORGANIZATION_INDEX = 'active_by_organization';
export const OVERDUE_INDEX = 'overdue';

export const ORGANIZATIONS_TABLE: TableDefinition = {
  nameSuffix: 'organizations',
  // The name is the key so that a conditional put makes it unique.
  partitionKey: text('name'),
  globalSecondaryIndexes: [{ indexName: BY_ID_INDEX, partitionKey: text('id') }],
};

export const API_KEYS_TABLE: TableDefinition = {
  nameSuffix: 'api_keys',
  // Every request authenticates by hash, so the hash is the key.
  partitionKey: text('hash'),
  globalSecondaryIndexes: [
    { indexName: BY_ORGANIZATION_INDEX, partitionKey: text('organization_id'), sortKey: { name: 'created_at', type: 'N' } },
    { indexName: BY_ID_INDEX, partitionKey: text('id') },
  ],
};

export const FUNCTIONS_TABLE: TableDefinition = {
  nameSuffix: 'functions',
  // owner + name is unique and an owner's functions list by name.
  partitionKey: text('owner_name'),
  sortKey: text('name'),
  globalSecondaryIndexes: [{ indexName: BY_ID_INDEX, partitionKey: text('id') }],
};

export const VERSIONS_TABLE: TableDefinition = {
  nameSuffix: 'versions',
  partitionKey: text('id'),
  globalSecondaryIndexes: [
    // created_key orders by creation time, then id, like the SQLite adapter's ORDER BY.
    { indexName: BY_FUNCTION_INDEX, partitionKey: text('function_id'), sortKey: text('created_key') },
    // Builds by status, oldest first: the sweeper's versions stuck in queued. Versions are few
    // and move a handful of times each, so a status as partition key is not hot.
    { indexName: BY_BUILD_STATUS_INDEX, partitionKey: text('build_status'), sortKey: text('created_key') },
  ],
};

export const LOGS_TABLE: TableDefinition = {
  nameSuffix: 'logs',
  // time_key orders by time_ns, then by a suffix that keeps equal times distinct.
  partitionKey: text('stream'),
  sortKey: text('time_key'),
  globalSecondaryIndexes: [{ indexName: BY_ORGANIZATION_INDEX, partitionKey: text('organization_id'), sortKey: text('time_key') }],
  timeToLiveAttribute: 'expires_at',
};

export const JOBS_TABLE: TableDefinition = {
  nameSuffix: 'jobs',
  partitionKey: text('id'),
  // created_key orders by creation time, then id, like the SQLite adapter's ORDER BY; lists
  // read the indexes backwards for newest first. A job with no parent has no parent_job_id
  // attribute, so by_parent holds child jobs only.
  globalSecondaryIndexes: [
    { indexName: BY_FUNCTION_INDEX, partitionKey: text('function_id'), sortKey: text('created_key') },
    { indexName: BY_VERSION_INDEX, partitionKey: text('version_id'), sortKey: text('created_key') },
    { indexName: BY_ORGANIZATION_INDEX, partitionKey: text('organization_id'), sortKey: text('created_key') },
    { indexName: BY_PARENT_INDEX, partitionKey: text('parent_job_id'), sortKey: text('created_key') },
    // Sparse: only a queued job has queued_version (its version id) and queued_shard, so these
    // hold the queued jobs alone. By version: the jobs that waited for a build, released when it
    // ends. By shard (one of a few, so pushes do not all write one index partition): the
    // sweeper's oldest queued jobs, whose queue message may have expired.
    { indexName: QUEUED_BY_VERSION_INDEX, partitionKey: text('queued_version'), sortKey: text('created_key') },
    { indexName: QUEUED_INDEX, partitionKey: text('queued_shard'), sortKey: text('created_key') },
    // Sparse: only a queued or processing job has active_organization (its organization's id):
    // an organization's unfinished jobs, counted for its concurrency without reading its history.
    { indexName: ACTIVE_BY_ORGANIZATION_INDEX, partitionKey: text('active_organization'), sortKey: text('created_key') },
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
  globalSecondaryIndexes: [
    // job_key orders a job's deliveries by URL, then sequence.
    { indexName: BY_JOB_INDEX, partitionKey: text('job_id'), sortKey: text('job_key') },
    // Sparse: only a pending delivery has pending_partition and pending_key (creation time,
    // then sequence), so the index holds the backlog alone and listing it reads nothing else.
    { indexName: PENDING_INDEX, partitionKey: text('pending_partition'), sortKey: text('pending_key') },
    // The same backlog by when the next attempt is due (due_key: next_attempt_at, then id): the
    // sweeper's overdue deliveries.
    { indexName: OVERDUE_INDEX, partitionKey: text('pending_partition'), sortKey: text('due_key') },
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
} as const satisfies Record<string, TableDefinition>;

export type TableId = keyof typeof TABLES;

export function tableName(tablePrefix: string, table: TableDefinition): string {
  return `${tablePrefix}${table.nameSuffix}`;
}
