import { createHash } from 'node:crypto';

/** One DynamoDB call as dynalite answers it (wire JSON both ways). */
export type DynaliteCall = (operation: string, payload: Record<string, any>) => Promise<{ status: number; body: Record<string, any> }>;

export interface TransactionAnswer {
  status: number;
  body: Record<string, any>;
}

type WireItem = Record<string, Record<string, unknown>>;
type Action = 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
interface Step {
  action: Action;
  request: Record<string, any>;
  table: string;
  key: WireItem;
  /** The item before the transaction; undefined when it did not exist. */
  before?: WireItem;
}

/** A step and dynalite's answer to it. */
interface Outcome {
  step: Step;
  status: number;
  body: Record<string, any>;
}

// DynamoDB's limits on TransactWriteItems, and how long a ClientRequestToken is remembered.
const MAX_ACTIONS = 100;
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const TOKEN_MS = 10 * 60_000;
const ACTIONS: Action[] = ['Put', 'Update', 'Delete', 'ConditionCheck'];

/**
 * TransactWriteItems, which dynalite lacks, made of the single-item calls it has: each item is
 * read as it was, every action is applied with its own condition, and if any condition fails
 * the applied ones are put back as they were and the answer is DynamoDB's
 * TransactionCanceledException, with a reason per action. It is all or nothing for every
 * reader only because the caller holds every other request off while it runs (dynalite.ts's
 * gate); a crash of this process in the middle could leave part of it, which DynamoDB never
 * does. DynamoDB's validations that a caller could trip are kept: at most 100 actions, 4 MB,
 * one action per item, and a ClientRequestToken answered again for 10 minutes.
 */
export class DynaliteTransactions {
  private readonly keySchemas = new Map<string, Promise<string[]>>();
  private readonly tokens = new Map<string, { digest: string; at: number; answer: TransactionAnswer }>();

  /** Runs the transaction `request` (of `bytes`), its single-item calls made by `call`. */
  async transactWrite(request: Record<string, any>, bytes: number, call: DynaliteCall): Promise<TransactionAnswer> {
    const items: unknown[] = Array.isArray(request.TransactItems) ? request.TransactItems : [];
    if (items.length === 0 || items.length > MAX_ACTIONS)
      return invalid(
        `1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length between 1 and ${MAX_ACTIONS}`,
      );
    if (bytes > MAX_REQUEST_BYTES) return invalid('Transaction request size exceeds the limit of 4 MB');
    const token = typeof request.ClientRequestToken === 'string' ? request.ClientRequestToken : null;
    const digest = createHash('sha256').update(JSON.stringify(items)).digest('hex');
    const remembered = token ? this.remembered(token) : undefined;
    if (remembered)
      return remembered.digest === digest
        ? remembered.answer
        : error(400, 'IdempotentParameterMismatchException', 'The request uses the same client token as a previous, but non-identical request.');
    const answer = await this.run(items, request.ReturnConsumedCapacity, call);
    if (token && answer.status === 200) this.tokens.set(token, { digest, at: Date.now(), answer });
    return answer;
  }

  private async run(items: unknown[], consumedCapacity: unknown, call: DynaliteCall): Promise<TransactionAnswer> {
    const steps: Step[] = [];
    const seen = new Set<string>();
    for (const item of items) {
      const step = await this.stepOf(item, call);
      if (typeof step === 'string') return invalid(step);
      const id = `${step.table}\n${JSON.stringify(Object.entries(step.key).sort())}`;
      if (seen.has(id)) return invalid('Transaction request cannot include multiple operations on one item');
      seen.add(id);
      steps.push(step);
    }
    for (const step of steps) {
      const read = await call('GetItem', { TableName: step.table, Key: step.key, ConsistentRead: true });
      if (read.status !== 200) return read;
      step.before = read.body.Item;
    }
    const outcomes: Outcome[] = [];
    for (const step of steps) outcomes.push({ step, ...(await call(...applied(step))) });
    const failed = outcomes.some(({ status }) => status !== 200);
    if (failed) {
      for (const { step, status } of outcomes) if (status === 200) await call(...restored(step));
      // A call refused for anything but its condition (a malformed expression) is answered as is.
      const refused = outcomes.find(({ status, body }) => status !== 200 && !isConditionFailure(body));
      return refused ? { status: refused.status, body: refused.body } : cancelled(outcomes);
    }
    const units = new Map<string, number>();
    // A transactional write costs twice the units of the same write alone.
    for (const { step, body } of outcomes) units.set(step.table, (units.get(step.table) ?? 0) + 2 * (body.ConsumedCapacity?.CapacityUnits ?? 0));
    const body = ['TOTAL', 'INDEXES'].includes(String(consumedCapacity))
      ? { ConsumedCapacity: [...units].map(([TableName, CapacityUnits]) => ({ TableName, CapacityUnits })) }
      : {};
    return { status: 200, body };
  }

  /** The action an entry of TransactItems names, with its item's key; a validation message when it is malformed. */
  private async stepOf(entry: unknown, call: DynaliteCall): Promise<Step | string> {
    const named = ACTIONS.filter((action) => entry && typeof entry === 'object' && action in entry);
    const action = named[0];
    if (!action || named.length !== 1) return 'TransactItems can only contain one of Check, Put, Update or Delete';
    const request = (entry as Record<string, any>)[action];
    if (typeof request?.TableName !== 'string') return `${action} has no TableName`;
    if (action !== 'Put') return request.Key ? { action, request, table: request.TableName, key: request.Key } : `${action} has no Key`;
    if (!request.Item) return 'Put has no Item';
    const names = await this.keySchema(request.TableName, call);
    if (!names) return `Requested resource not found: Table: ${request.TableName} not found`;
    return { action, request, table: request.TableName, key: Object.fromEntries(names.map((name) => [name, request.Item[name] ?? {}])) };
  }

  private async keySchema(table: string, call: DynaliteCall): Promise<string[] | null> {
    let names = this.keySchemas.get(table);
    if (!names) {
      names = call('DescribeTable', { TableName: table }).then(({ status, body }) => {
        if (status !== 200) throw new Error(`DescribeTable ${table}: ${status}`);
        return (body.Table?.KeySchema ?? []).map(({ AttributeName }: { AttributeName: string }) => AttributeName);
      });
      this.keySchemas.set(table, names);
    }
    return names.catch(() => (this.keySchemas.delete(table), null));
  }

  private remembered(token: string) {
    const now = Date.now();
    for (const [old, { at }] of this.tokens) if (now - at > TOKEN_MS) this.tokens.delete(old);
    return this.tokens.get(token);
  }
}

/** The single-item call that applies a step, condition included. */
function applied({ action, request, key, before }: Step): [string, Record<string, any>] {
  const condition = {
    TableName: request.TableName,
    ConditionExpression: request.ConditionExpression,
    ExpressionAttributeNames: request.ExpressionAttributeNames,
    ExpressionAttributeValues: request.ExpressionAttributeValues,
    ReturnConsumedCapacity: 'TOTAL',
  };
  if (action === 'Put') return ['PutItem', { ...condition, Item: request.Item }];
  if (action === 'Update') return ['UpdateItem', { ...condition, Key: key, UpdateExpression: request.UpdateExpression }];
  if (action === 'Delete') return ['DeleteItem', { ...condition, Key: key }];
  // A check writes the item as it was (or deletes what is not there), under the condition.
  return before ? ['PutItem', { ...condition, Item: before }] : ['DeleteItem', { ...condition, Key: key }];
}

/** The call that puts a step's item back as it was before the transaction. */
function restored({ table, key, before }: Step): [string, Record<string, any>] {
  return before ? ['PutItem', { TableName: table, Item: before }] : ['DeleteItem', { TableName: table, Key: key }];
}

function cancelled(outcomes: Outcome[]): TransactionAnswer {
  const reasons = outcomes.map(({ step, status }) => {
    if (status === 200) return { Code: 'None' };
    const reason: Record<string, unknown> = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };
    if (step.request.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && step.before) reason.Item = step.before;
    return reason;
  });
  const codes = reasons.map(({ Code }) => Code).join(', ');
  return error(400, 'TransactionCanceledException', `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, {
    CancellationReasons: reasons,
  });
}

function isConditionFailure(body: Record<string, any>): boolean {
  return String(body.__type ?? '').endsWith('#ConditionalCheckFailedException');
}

const invalid = (message: string) => error(400, 'ValidationException', message);

function error(status: number, type: string, message: string, extra: Record<string, unknown> = {}): TransactionAnswer {
  return { status, body: { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message, ...extra } };
}
