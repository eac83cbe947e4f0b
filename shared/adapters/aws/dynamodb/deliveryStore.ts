import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryAttempt, DeliveryState, WebhookDelivery } from '../../../domain/webhookDelivery.js';
import type { DeliveryStore } from '../../../ports/store.js';
import { getItems } from './batchReads.js';
import { ifConditionHolds, isConditionFailure } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem } from './itemReads.js';
import { dataOf, withData } from './jsonData.js';
import { collect, pageSizeFor, queryItems } from './pagedItems.js';
import { pendingShardOf, pendingShards } from './pendingShards.js';
import { byKey, queryShards, type ShardedQuery } from './shardedQueries.js';
import { sortableKey } from './sortableKey.js';
import type { Spiller } from './spill.js';
import { BY_JOB_INDEX, OVERDUE_INDEX, PENDING_INDEX } from './tables.js';

/**
 * What recordAttempt changes lives in attributes of its own (the attempts as a native list, so
 * an attempt is appended by list_append, never by rewriting what another writer just stored);
 * the fields that never change are JSON in `data`, and the payload is a string attribute of its
 * own, kept exactly as signed (spilled to S3 when an output event carries a large output).
 */
type FixedFields = Omit<WebhookDelivery, 'payload' | 'state' | 'attempts' | 'nextAttemptAt'>;

/**
 * A sort key attribute holds at most 1024 bytes: the URL in job_key is cut to 256 UTF-16 units
 * (at most 768 bytes). Reads sort by the full URL, so the cut never changes the order returned.
 */
const URL_KEY_LENGTH = 256;

const jobKey = (delivery: WebhookDelivery) => `${delivery.url.slice(0, URL_KEY_LENGTH)}#${sortableKey(delivery.sequence, delivery.id)}`;

/** Oldest first: creation time, then sequence, then id, as the SQLite adapter orders them. */
const pendingKey = (delivery: WebhookDelivery) => sortableKey(delivery.createdAt, sortableKey(delivery.sequence, delivery.id));

/** Earliest due first: the next attempt's time, then id. */
const dueKey = (nextAttemptAt: number, id: string) => sortableKey(nextAttemptAt, id);

async function toItem(spill: Spiller, delivery: WebhookDelivery) {
  const { payload, state, attempts, nextAttemptAt, ...fixed } = delivery;
  const payloadText = await spill.write('payload', payload, delivery.jobId);
  const attributes: Item = {
    id: delivery.id,
    job_id: delivery.jobId,
    job_key: jobKey(delivery),
    state,
    attempts,
    next_attempt_at: nextAttemptAt,
    ...payloadText.attributes,
    ...(state === 'pending'
      ? { pending_shard: pendingShardOf(delivery.id), pending_key: pendingKey(delivery), due_key: dueKey(nextAttemptAt, delivery.id) }
      : {}),
  };
  return { item: withData(attributes, fixed), spilledKey: payloadText.spilledKey };
}

const toAttempt = (attempt: Item): DeliveryAttempt => ({
  at: attempt.at as number,
  status: (attempt.status as number | null | undefined) ?? null,
  error: (attempt.error as string | null | undefined) ?? null,
});

const toDelivery = async (spill: Spiller, item: Item): Promise<WebhookDelivery> => ({
  ...dataOf<FixedFields>(item),
  payload: await spill.read(item, 'payload'),
  state: item.state as DeliveryState,
  attempts: (item.attempts as Item[]).map(toAttempt),
  nextAttemptAt: item.next_attempt_at as number,
});

const byUrlThenSequence = (a: WebhookDelivery, b: WebhookDelivery) =>
  (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) || a.sequence - b.sequence || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function dynamoDbDeliveryStore(context: DynamoDbContext): DeliveryStore {
  const TableName = context.tables.deliveries;
  const { spill } = context;
  /** The deliveries an index's keys point at, read whole, in the keys' order. */
  const deliveriesOf = async (keys: Item[], stillPending = false) => {
    const items = await getItems(context, TableName, keys, ['id']);
    // A keys-only index may lag a move: a delivery that left pending is no longer in the backlog.
    return Promise.all(items.filter((item) => !stillPending || item.state === 'pending').map((item) => toDelivery(spill, item)));
  };
  /** The backlog's keys in one pending index, every shard merged in its sort key's order. */
  const pendingKeys = (IndexName: string, sortKey: string, query: Omit<ShardedQuery, 'TableName' | 'IndexName' | 'partitionKey'> = {}) =>
    queryShards(context, { TableName, IndexName, partitionKey: { attribute: 'pending_shard', values: pendingShards() }, ...query }, byKey(sortKey));
  return {
    async create(delivery) {
      const { item, spilledKey } = await toItem(spill, delivery);
      try {
        await spill.writeItem([spilledKey], () =>
          context.client.send(new PutCommand({ TableName, Item: item, ConditionExpression: 'attribute_not_exists(id)' })),
        );
        return true;
      } catch (error) {
        // A duplicate id stores nothing (its spilled copy discarded): the delivery made first stands.
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    async get(id) {
      const item = await getItem(context, TableName, { id });
      return item ? toDelivery(spill, item) : null;
    },
    async recordAttempt(id, attempt, state, nextAttemptAt) {
      // One conditional update: attempts recorded at once are all appended while the delivery
      // stays pending; once one ends it, the others fail the condition. Leaving pending removes
      // the pending index keys, which takes the delivery out of those indexes; staying moves it
      // in the overdue index to its new due time.
      const stays = state === 'pending';
      const keys = stays ? ', due_key = :due' : ' REMOVE pending_shard, pending_key, due_key';
      const output = await ifConditionHolds(() =>
        context.client.send(
          new UpdateCommand({
            TableName,
            Key: { id },
            UpdateExpression: `SET attempts = list_append(attempts, :attempt), #state = :state, next_attempt_at = :next${keys}`,
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':attempt': [attempt],
              ':state': state,
              ':next': nextAttemptAt,
              ':pending': 'pending',
              ...(stays ? { ':due': dueKey(nextAttemptAt, id) } : {}),
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return output?.Attributes ? toDelivery(spill, output.Attributes) : null;
    },
    async listByJob(jobId) {
      const items = queryItems(context, {
        TableName,
        IndexName: BY_JOB_INDEX,
        KeyConditionExpression: 'job_id = :job',
        ExpressionAttributeValues: { ':job': jobId },
      });
      return (await deliveriesOf(await collect(items))).sort(byUrlThenSequence);
    },
    async listOverdue(dueBefore, limit, after) {
      // One condition on a sort key: BETWEEN, from just past the cursor's key ('\0' sorts first).
      const keys = pendingKeys(OVERDUE_INDEX, 'due_key', {
        sortCondition: after ? ' AND due_key BETWEEN :after AND :before' : ' AND due_key < :before',
        ExpressionAttributeValues: {
          ':before': sortableKey(dueBefore, ''),
          ...(after ? { ':after': `${dueKey(after.nextAttemptAt, after.id)}\0` } : {}),
        },
        Limit: pageSizeFor({ limit }),
      });
      return deliveriesOf(await collect(keys, { limit }), true);
    },
    async listPending() {
      return deliveriesOf(await collect(pendingKeys(PENDING_INDEX, 'pending_key')), true);
    },
  };
}
