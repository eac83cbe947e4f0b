import { PutCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { BuildStatus } from '../../../domain/buildStatus.js';
import type { ReplicaBounds, VersionPatch, VersionRecord } from '../../../domain/version.js';
import type { VersionStore } from '../../../ports/store.js';
import { getItems } from './batchReads.js';
import { ifConditionHolds } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { placeholders } from './expressionValues.js';
import { getItem } from './itemReads.js';
import { dataOf, withData } from './jsonData.js';
import { collect, pageSizeFor, queryItems, type Window } from './pagedItems.js';
import { sortableKey } from './sortableKey.js';
import { BY_BUILD_STATUS_INDEX, BY_FUNCTION_INDEX } from './tables.js';

/**
 * The fields a transition may change live in attributes of their own, so that a transition is
 * one conditional UpdateItem; the rest of the record never changes and is kept as JSON.
 */
const PATCHABLE: Record<keyof VersionPatch, string> = {
  buildStatus: 'build_status',
  builtAt: 'built_at',
  readyAt: 'ready_at',
  buildError: 'build_error',
  taskFailures: 'task_failures',
  capacityShortage: 'capacity_shortage',
};
const PATCHABLE_FIELDS = Object.keys(PATCHABLE) as (keyof VersionPatch)[];

type FixedFields = Omit<VersionRecord, keyof VersionPatch>;

function toItem(version: VersionRecord): Item {
  const { buildStatus, builtAt, readyAt, buildError, taskFailures, capacityShortage, ...fixed } = version;
  const attributes = {
    id: version.id,
    function_id: version.functionId,
    created_key: sortableKey(version.createdAt, version.id),
    build_status: buildStatus,
    built_at: builtAt,
    ready_at: readyAt,
    build_error: buildError,
    task_failures: taskFailures ?? 0,
    capacity_shortage: capacityShortage ?? null,
    // Editable without a redeploy (setReplicaBounds): attributes of their own, over the JSON's copy.
    minimum_replicas: version.minimumReplicas,
    maximum_replicas: version.maximumReplicas,
    ...(version.scaledownWindowSeconds === undefined ? {} : { scaledown_window_s: version.scaledownWindowSeconds }),
    ...(version.bufferReplicas === undefined ? {} : { buffer_replicas: version.bufferReplicas }),
  };
  return withData(attributes, fixed);
}

const toVersion = (item: Item): VersionRecord => ({
  ...dataOf<FixedFields>(item),
  buildStatus: item.build_status as BuildStatus,
  builtAt: item.built_at as number | null,
  readyAt: item.ready_at as number | null,
  buildError: item.build_error as string | null,
  // Absent on versions stored before the count existed.
  taskFailures: (item.task_failures as number | undefined) ?? 0,
  // Only while there is one, as the record had it.
  ...(typeof item.capacity_shortage === 'string' ? { capacityShortage: item.capacity_shortage } : {}),
  ...replicaBoundsOf(item),
});

/** The replica bounds' own attributes; versions stored before they existed have them in the JSON only. */
function replicaBoundsOf(item: Item): Partial<ReplicaBounds> {
  const bounds: Partial<ReplicaBounds> = {};
  if (item.minimum_replicas !== undefined) bounds.minimumReplicas = item.minimum_replicas as number;
  if (item.maximum_replicas !== undefined) bounds.maximumReplicas = item.maximum_replicas as number | null;
  if (item.scaledown_window_s !== undefined) bounds.scaledownWindowSeconds = item.scaledown_window_s as number | null;
  if (item.buffer_replicas !== undefined) bounds.bufferReplicas = item.buffer_replicas as number;
  return bounds;
}

function transitionUpdate(from: readonly BuildStatus[], patch: VersionPatch) {
  const fields = PATCHABLE_FIELDS.filter((field) => patch[field] !== undefined);
  const values = placeholders(
    'value',
    fields.map((field) => patch[field]),
  );
  const statuses = placeholders('from', from);
  const sets = fields.map((field, index) => `${PATCHABLE[field]} = ${values.names[index]}`);
  return {
    // An empty patch still checks the guard: SET of the status to itself changes nothing.
    UpdateExpression: `SET ${sets.length > 0 ? sets.join(', ') : 'build_status = build_status'}`,
    ConditionExpression: `build_status IN (${statuses.names.join(', ')})`,
    ExpressionAttributeValues: { ...values.bound, ...statuses.bound },
  };
}

export function dynamoDbVersionStore(context: DynamoDbContext): VersionStore {
  const TableName = context.tables.versions;
  /** A function's versions, newest first (created_at desc, then id desc), optionally filtered. */
  const newestFirst = async (functionId: string, window: Window, filter: Partial<QueryCommandInput> = {}) => {
    const items = queryItems(context, {
      TableName,
      IndexName: BY_FUNCTION_INDEX,
      KeyConditionExpression: 'function_id = :function',
      ScanIndexForward: false,
      ...filter,
      ExpressionAttributeValues: { ':function': functionId, ...filter.ExpressionAttributeValues },
      // A filter drops items after Limit counts them, so only an unfiltered read can size its pages.
      Limit: filter.FilterExpression ? undefined : pageSizeFor(window),
    });
    return (await collect(items, window)).map(toVersion);
  };
  return {
    async create(version) {
      // A duplicate id is refused (it throws), as a primary key would.
      await context.client.send(new PutCommand({ TableName, Item: toItem(version), ConditionExpression: 'attribute_not_exists(id)' }));
    },
    async get(id) {
      const item = await getItem(context, TableName, { id });
      return item ? toVersion(item) : null;
    },
    async findByPrefix(functionId, prefix, limit) {
      // begins_with compares literally: '%' and '_' are plain characters here.
      const filter = prefix === '' ? {} : { FilterExpression: 'begins_with(id, :prefix)', ExpressionAttributeValues: { ':prefix': prefix } };
      return newestFirst(functionId, { limit }, filter);
    },
    async listByFunction(functionId, page) {
      return newestFirst(functionId, page);
    },
    async latestReady(functionId) {
      const [latest] = await newestFirst(
        functionId,
        { limit: 1 },
        { FilterExpression: 'build_status = :ready', ExpressionAttributeValues: { ':ready': 'ready' } },
      );
      return latest ?? null;
    },
    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const output = await ifConditionHolds(() =>
        context.client.send(new UpdateCommand({ TableName, Key: { id }, ReturnValues: 'ALL_NEW', ...transitionUpdate(from, patch) })),
      );
      return output?.Attributes ? toVersion(output.Attributes) : null;
    },
    async setReplicaBounds(id, bounds) {
      const output = await ifConditionHolds(() =>
        context.client.send(
          new UpdateCommand({
            TableName,
            Key: { id },
            // The scale-down window and buffer only when given: absent, they stay as they are.
            UpdateExpression: [
              'SET minimum_replicas = :minimum, maximum_replicas = :maximum',
              ...(bounds.scaledownWindowSeconds === undefined ? [] : ['scaledown_window_s = :window']),
              ...(bounds.bufferReplicas === undefined ? [] : ['buffer_replicas = :buffer']),
            ].join(', '),
            ConditionExpression: 'attribute_exists(id)',
            ExpressionAttributeValues: {
              ':minimum': bounds.minimumReplicas,
              ':maximum': bounds.maximumReplicas,
              ...(bounds.scaledownWindowSeconds === undefined ? {} : { ':window': bounds.scaledownWindowSeconds }),
              ...(bounds.bufferReplicas === undefined ? {} : { ':buffer': bounds.bufferReplicas }),
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return output?.Attributes ? toVersion(output.Attributes) : null;
    },
    async listByBuildStatus(statuses, createdBefore) {
      const before = createdBefore === undefined ? {} : { condition: ' AND created_key < :before', values: { ':before': sortableKey(createdBefore, '') } };
      const lists = await Promise.all(
        [...new Set(statuses)].map(async (status) => {
          const items = queryItems(context, {
            TableName,
            IndexName: BY_BUILD_STATUS_INDEX,
            KeyConditionExpression: `build_status = :status${before.condition ?? ''}`,
            ExpressionAttributeValues: { ':status': status, ...before.values },
          });
          return collect(items);
        }),
      );
      // The index holds keys only: the versions are read whole, and kept while still in a wanted status.
      const wanted = new Set<string>(statuses);
      const found = await getItems(context, TableName, lists.flat(), ['id']);
      return found
        .filter((item) => wanted.has(item.build_status as string))
        .map(toVersion)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
  };
}
