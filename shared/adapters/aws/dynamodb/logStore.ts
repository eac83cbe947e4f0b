import { randomBytes } from 'node:crypto';
import type { LogEntry, LogStage } from '../../../domain/log.js';
import type { LogQuery, LogStore } from '../../../ports/store.js';
import { batchPut } from './batchWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { collect, pageSizeFor, queryItems } from './pagedItems.js';
import { numberOfKey, sortableKey, sortableRange } from './sortableKey.js';
import { BY_ORGANIZATION_INDEX } from './tables.js';

export interface LogRetention {
  /** How long a line is kept after it is written; DynamoDB's TTL deletes it then. */
  retentionDays: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * An item holds at most 400 KB. A longer line is cut (100,000 UTF-16 units are at most
 * 300 KB of UTF-8) rather than failing the whole batch it travels in.
 */
const MAX_MESSAGE_LENGTH = 100_000;

const SECONDS_PER_DAY = 86_400;

const toEntry = (item: Item): LogEntry => ({
  stream: item.stream as string,
  organizationId: item.organization_id as string,
  functionId: item.function_id as string,
  jobId: item.job_id as string,
  runId: item.run_id as string,
  stage: item.stage as LogStage,
  timeNs: numberOfKey(item.time_key as string),
  message: item.message as string,
});

/** The query for a range of one stream's lines, or of all an organization's lines. */
function rangeQuery(TableName: string, { stream, organizationId, startNs, endNs, limit }: LogQuery) {
  const range = sortableRange(startNs, endNs);
  const values = { ':organization': organizationId, ':from': range.from, ':to': range.to };
  if (stream === undefined) {
    return {
      TableName,
      IndexName: BY_ORGANIZATION_INDEX,
      KeyConditionExpression: 'organization_id = :organization AND time_key BETWEEN :from AND :to',
      ExpressionAttributeValues: values,
      Limit: pageSizeFor({ limit }),
    };
  }
  return {
    TableName,
    KeyConditionExpression: '#stream = :stream AND time_key BETWEEN :from AND :to',
    // A stream's lines are its organization's only: the filter keeps another's out. It drops
    // nothing for the owner (the services check the stream's owner first), so a page of the
    // size asked for reads that many lines, not a whole 1 MB page.
    FilterExpression: 'organization_id = :organization',
    ExpressionAttributeNames: { '#stream': 'stream' },
    ExpressionAttributeValues: { ...values, ':stream': stream },
    Limit: pageSizeFor({ limit }),
  };
}

export function dynamoDbLogStore(context: DynamoDbContext, retention: LogRetention): LogStore {
  const TableName = context.tables.logs;
  return {
    async append(entries) {
      const expiresAt = Math.floor(retention.now() / 1000) + retention.retentionDays * SECONDS_PER_DAY;
      // The suffix keeps lines of equal time distinct, and in order within one append.
      const batch = randomBytes(6).toString('hex');
      const items = entries.map((entry, index) => ({
        stream: entry.stream,
        time_key: sortableKey(entry.timeNs, `${batch}${String(index).padStart(6, '0')}`),
        organization_id: entry.organizationId,
        function_id: entry.functionId,
        job_id: entry.jobId,
        run_id: entry.runId,
        stage: entry.stage,
        message: entry.message.slice(0, MAX_MESSAGE_LENGTH),
        expires_at: expiresAt,
      }));
      await batchPut(context, TableName, items);
    },
    async query(query) {
      if (query.limit <= 0 || query.endNs < query.startNs) return [];
      return (await collect(queryItems(context, rangeQuery(TableName, query)), { limit: query.limit })).map(toEntry);
    },
  };
}
