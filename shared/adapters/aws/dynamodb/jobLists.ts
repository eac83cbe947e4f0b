import type { ChildJob, JobRecord, JobStatus } from '../../../domain/job.js';
import type { ActiveJobCounts, JobFilter, JobStore, Page } from '../../../ports/store.js';
import { getItems } from './batchReads.js';
import type { DynamoDbContext, Item } from './context.js';
import { LISTED_PROJECTION, organizationShards, QUEUED_BASE, QUEUED_SHARDS, toJob, toListedJob, type FixedFields } from './jobItems.js';
import { spillableDataOf } from './jsonData.js';
import { collect, pageSizeFor, queryItems } from './pagedItems.js';
import { byKey, queryShards, shardStreams } from './shardedQueries.js';
import { sortableKey, sortableRange } from './sortableKey.js';
import { spillAttributeOf } from './spill.js';
import {
  ACTIVE_BY_ORGANIZATION_INDEX,
  BY_FUNCTION_INDEX,
  BY_ORGANIZATION_INDEX,
  BY_PARENT_INDEX,
  BY_VERSION_INDEX,
  QUEUED_BY_VERSION_INDEX,
  QUEUED_INDEX,
} from './tables.js';

type JobLists = Pick<
  JobStore,
  | 'listByFunction'
  | 'listByVersion'
  | 'listByOrganization'
  | 'countActive'
  | 'listCreatedBetween'
  | 'listChildren'
  | 'listChildSummaries'
  | 'listQueuedByVersion'
  | 'listQueuedBefore'
>;

/** LISTED_PROJECTION and the sort key, by which shards merge. */
const LISTED_WITH_KEY = {
  ProjectionExpression: `${LISTED_PROJECTION.ProjectionExpression}, created_key`,
  ExpressionAttributeNames: LISTED_PROJECTION.ExpressionAttributeNames,
};

const newestKeyFirst = byKey('created_key', 'descending');
const oldestKeyFirst = byKey('created_key');

/**
 * Each shard's page holds a little over its even share of `offset + limit`, so a page reads
 * about what one index would; a shard that holds more than its share reads on lazily.
 */
const shardPageSize = (page: Page, shardCount: number) =>
  shardCount === 1 ? pageSizeFor(page) : pageSizeFor({ limit: Math.ceil((Math.max(0, page.offset) + page.limit) / shardCount) + 1 });

/** The reads of the jobs table's indexes; a sharded index's shards are merged into its one order. */
export function dynamoDbJobLists(context: DynamoDbContext): JobLists {
  const TableName = context.tables.jobs;
  const { spill } = context;
  const toListedJobs = (items: Item[]) => Promise.all(items.map((item) => toListedJob(spill, item)));
  /** The jobs the index keys point at, still queued (an index may lag a move), read whole. */
  const queuedJobs = async (keys: Item[]) => {
    const items = await getItems(context, TableName, keys, ['id']);
    return Promise.all(items.filter((item) => item.status === 'queued').map((item) => toJob(spill, item)));
  };

  /**
   * The jobs under these partition keys (an index's shards, or its one key), newest first, of
   * the filter's organization and status. The filters apply after DynamoDB reads a page, so
   * pages are read until limit + offset jobs passed. The organization filter rarely drops a job
   * of a function (or version): those pages are sized to the window; a status filter may drop
   * most, so it reads full pages.
   */
  const newestFirst = async (IndexName: string, key: { attribute: string; values: string[] }, filter: JobFilter, page: Page) => {
    const conditions: string[] = [];
    const values: Item = {};
    if (key.attribute !== 'organization_shard') {
      conditions.push('organization_id = :organization');
      values[':organization'] = filter.organizationId;
    }
    if (filter.status !== undefined) {
      conditions.push('#status = :status');
      values[':status'] = filter.status;
    }
    // Resumed where an earlier page ended: the index's keys after that job's (newest first: below it).
    if (page.after) values[':after'] = sortableKey(page.after.createdAt, page.after.id);
    const query = {
      TableName,
      IndexName,
      partitionKey: key,
      sortCondition: page.after ? ' AND created_key < :after' : undefined,
      FilterExpression: conditions.length > 0 ? conditions.join(' AND ') : undefined,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      Limit: filter.status === undefined ? shardPageSize(page, key.values.length) : undefined,
      ...LISTED_WITH_KEY,
    };
    return toListedJobs(await collect(queryShards(context, query, newestKeyFirst), page));
  };

  return {
    listByFunction: (functionId, filter, page) => newestFirst(BY_FUNCTION_INDEX, { attribute: 'function_id', values: [functionId] }, filter, page),
    listByVersion: (versionId, filter, page) => newestFirst(BY_VERSION_INDEX, { attribute: 'version_id', values: [versionId] }, filter, page),
    listByOrganization: (filter, page) =>
      newestFirst(BY_ORGANIZATION_INDEX, { attribute: 'organization_shard', values: organizationShards(filter.organizationId) }, filter, page),
    async countActive(organizationId) {
      const counts: ActiveJobCounts = { queued: 0, processing: 0 };
      const projection = { ProjectionExpression: '#status', ExpressionAttributeNames: { '#status': 'status' } };
      const partitionKey = { attribute: 'active_shard', values: organizationShards(organizationId) };
      const shards = shardStreams(context, { TableName, IndexName: ACTIVE_BY_ORGANIZATION_INDEX, partitionKey, ...projection });
      await Promise.all(
        shards.map(async (items) => {
          for await (const item of items) if (item.status === 'queued' || item.status === 'processing') counts[item.status as keyof ActiveJobCounts]++;
        }),
      );
      return counts;
    },
    async listCreatedBetween(organizationId, from, to) {
      if (to <= from) return [];
      const range = sortableRange(BigInt(Math.max(0, Math.ceil(from))), BigInt(Math.ceil(to)) - 1n);
      const query = {
        TableName,
        IndexName: BY_ORGANIZATION_INDEX,
        partitionKey: { attribute: 'organization_shard', values: organizationShards(organizationId) },
        sortCondition: ' AND created_key BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':from': range.from, ':to': range.to },
        ...LISTED_WITH_KEY,
      };
      return toListedJobs(await collect(queryShards(context, query, oldestKeyFirst)));
    },
    async listChildren(parentJobId) {
      const items = queryItems(context, {
        TableName,
        IndexName: BY_PARENT_INDEX,
        KeyConditionExpression: 'parent_job_id = :parent',
        ExpressionAttributeValues: { ':parent': parentJobId },
        ...LISTED_PROJECTION,
      });
      return toListedJobs(await collect(items));
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
    async listQueuedByVersion(versionId) {
      const keys = queryItems(context, {
        TableName,
        IndexName: QUEUED_BY_VERSION_INDEX,
        KeyConditionExpression: 'queued_version = :version',
        ExpressionAttributeValues: { ':version': versionId },
      });
      return queuedJobs(await collect(keys));
    },
    async listQueuedBefore(createdBefore, limit): Promise<JobRecord[]> {
      // Each shard's oldest `limit`, merged: the oldest `limit` of all.
      const query = {
        TableName,
        IndexName: QUEUED_INDEX,
        partitionKey: { attribute: 'queued_shard', values: QUEUED_SHARDS.all(QUEUED_BASE) },
        sortCondition: ' AND created_key < :before',
        ExpressionAttributeValues: { ':before': sortableKey(createdBefore, '') },
        Limit: pageSizeFor({ limit }),
      };
      return queuedJobs(await collect(queryShards(context, query, oldestKeyFirst), { limit: Math.max(0, limit) }));
    },
  };
}
