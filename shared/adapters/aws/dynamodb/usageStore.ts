import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BillingClass } from '../../../domain/machineTypes.js';
import type { UsageIncrement, UsageTotals } from '../../../domain/usage.js';
import type { UsageQuery, UsageStore } from '../../../ports/store.js';
import type { DynamoDbContext, Item } from './context.js';
import { collect, queryItems } from './pagedItems.js';
import { sortableKey, sortableRange } from './sortableKey.js';

/** The aggregate's sort key: the hour zero-padded (so key order is time order), then version and class. */
const usageKey = (increment: UsageIncrement) => sortableKey(increment.hour, `${increment.versionId}#${increment.billingClass}`);

/**
 * Usage in DynamoDB: one item per (organization, hour, version, billing class) whose sums
 * grow by ADD, an atomic increment, and a marker item per job counted, written together.
 */
export function dynamoDbUsageStore(context: DynamoDbContext): UsageStore {
  const HoursTableName = context.tables.usageHours;
  const JobsTableName = context.tables.usageJobs;

  const hourKey = (increment: UsageIncrement) => ({ organization_id: increment.organizationId, usage_key: usageKey(increment) });
  const sums = (increment: UsageIncrement) => ({
    ':function': increment.functionId,
    ':version': increment.versionId,
    ':class': increment.billingClass,
    ':hour': increment.hour,
    ':seconds': increment.computeSeconds,
    ':cost': increment.costDollars,
  });
  const SET_SUMS = 'SET function_id = :function, version_id = :version, billing_class = :class, #hour = :hour ADD compute_seconds :seconds, cost_dollars :cost';
  // HOUR is a reserved word.
  const HOUR_NAME = { '#hour': 'hour' };

  /** The ADD of `increment` to its hour's item: alone (idle time), or in a job's transaction. */
  const hourUpdate = (increment: UsageIncrement) => ({
    TableName: HoursTableName,
    Key: hourKey(increment),
    UpdateExpression: SET_SUMS,
    ExpressionAttributeNames: HOUR_NAME,
    ExpressionAttributeValues: sums(increment),
  });

  const add = async (increment: UsageIncrement) => {
    await outlastingConflicts(() => context.client.send(new UpdateCommand(hourUpdate(increment))));
  };

  /** The aggregates of the hours asked for (of the version, when one is named). */
  const hourItems = async (query: UsageQuery): Promise<Item[]> => {
    // Hours are whole numbers: fromHour <= hour < toHour is the key range [ceil(from), ceil(to) - 1].
    const from = Math.max(0, Math.ceil(query.fromHour));
    const last = Math.ceil(query.toHour) - 1;
    if (last < from) return [];
    const range = sortableRange(BigInt(from), BigInt(last));
    const byVersion = query.versionId !== undefined;
    const items = queryItems(context, {
      TableName: HoursTableName,
      KeyConditionExpression: 'organization_id = :organization AND usage_key BETWEEN :from AND :to',
      FilterExpression: byVersion ? 'version_id = :version' : undefined,
      ExpressionAttributeValues: {
        ':organization': query.organizationId,
        ':from': range.from,
        ':to': range.to,
        ...(byVersion ? { ':version': query.versionId } : {}),
      },
      // The sums must include an add that was just acknowledged.
      ConsistentRead: true,
    });
    return collect(items);
  };

  return {
    async recordJob(jobId, increment) {
      // One transaction: the job's marker, put only if absent, and the hour's add. Both or
      // neither land, so no failure or crash between them can leave a marker that was never
      // added (which no later call could count) or an add without its marker.
      const marker: Item = { job_id: jobId, organization_id: increment.organizationId, hour: increment.hour };
      try {
        await outlastingConflicts(() =>
          context.client.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: JobsTableName, Item: marker, ConditionExpression: 'attribute_not_exists(job_id)' } },
                { Update: hourUpdate(increment) },
              ],
            }),
          ),
        );
        return true;
      } catch (error) {
        if (markerExisted(error)) return false;
        throw error;
      }
    },
    add,
    async totals(query) {
      const totals = new Map<BillingClass, UsageTotals>();
      for (const item of await hourItems(query)) addTo(totals, item);
      return totals;
    },
    async totalsByFunction(query) {
      const totals = new Map<string, Map<BillingClass, UsageTotals>>();
      for (const item of await hourItems(query)) {
        const functionId = item.function_id as string;
        const ofFunction = totals.get(functionId) ?? new Map<BillingClass, UsageTotals>();
        addTo(ofFunction, item);
        totals.set(functionId, ofFunction);
      }
      return totals;
    },
  };
}

/** Adds one hour's aggregate to the sums by billing class. */
function addTo(totals: Map<BillingClass, UsageTotals>, item: Item): void {
  const billingClass = item.billing_class as BillingClass;
  const sum = totals.get(billingClass) ?? { computeSeconds: 0, costDollars: 0 };
  sum.computeSeconds += item.compute_seconds as number;
  sum.costDollars += item.cost_dollars as number;
  totals.set(billingClass, sum);
}

/** How many times a write that met another's transaction on the same hour is made. */
const CONFLICT_ATTEMPTS = 10;

/**
 * Every job of a version ending in an hour writes that hour's item, and DynamoDB cancels a
 * transaction (or refuses a write) that overlaps another's transaction on an item, which the
 * SDK does not retry: `write` is made again after a jittered pause, up to CONFLICT_ATTEMPTS times.
 */
async function outlastingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || markerExisted(error) || !isConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 20 * 2 ** attempt)));
    }
  }
}

function isConflict(error: unknown): boolean {
  if (error instanceof TransactionCanceledException) return error.CancellationReasons?.some(({ Code }) => Code === 'TransactionConflict') ?? false;
  return error instanceof Error && error.name === 'TransactionConflictException';
}

/** The transaction was refused because the job's marker was there: the job is counted already. */
function markerExisted(error: unknown): boolean {
  return error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
}
