import { DescribeTableCommand, DynamoDBClient, GetItemCommand, type AttributeValue, type TableDescription } from '@aws-sdk/client-dynamodb';
import { EMULATED_CREDENTIALS, EMULATED_REGION } from './awsClients.js';
import { tableIndexWriteUnits, type RawItem } from './indexWriteUnits.js';

/** A key or item as the request carries it (JSON wire form: binary in base64). */
type WireKey = Record<string, { S?: string; N?: string; B?: string }>;

/** One item a write touches. */
interface Target {
  table: string;
  key: WireKey;
}

/**
 * Index write units of the writes that pass the DynamoDB front: it reads each touched item
 * before and after the write, straight from dynalite (uncounted, consistent), and prices the
 * change by the table's indexes as dynalite describes them (the deployment's tables.ts ones).
 * Writes to one item are serialised so that the two reads see this write's change alone.
 */
export class DynamoDbIndexMeter {
  private readonly client: DynamoDBClient;
  private readonly tables = new Map<string, Promise<TableDescription>>();
  private readonly tails = new Map<string, Promise<void>>();

  constructor(dynaliteEndpoint: string) {
    this.client = new DynamoDBClient({ region: EMULATED_REGION, credentials: EMULATED_CREDENTIALS, endpoint: dynaliteEndpoint, maxAttempts: 1 });
  }

  /** A table created, changed or deleted: read its indexes again. */
  forget(table: string): void {
    this.tables.delete(table);
  }

  /**
   * Runs `write` (which reports whether DynamoDB accepted it) and answers the index units it
   * cost; 0 for an operation that writes no item, or where the items could not be read.
   */
  async measure(operation: string, request: Record<string, any>, write: () => Promise<boolean>): Promise<number> {
    const writes = itemWrites(operation, request);
    const described = writes.length > 0 ? await Promise.all(writes.map(({ table }) => this.describe(table))).catch(() => null) : null;
    if (!described) return (await write(), 0);
    const targets = writes.map(({ table, key, item }, n) => ({ table, key: key ?? keyOf(item, described[n] as TableDescription) }));
    return this.holding(
      targets.map(({ table, key }) => `${table}\n${JSON.stringify(Object.entries(key).sort())}`),
      async () => {
        const before = await this.read(targets);
        if (!(await write()) || !before) return 0;
        const after = await this.read(targets);
        return after ? targets.reduce((sum, _, n) => sum + tableIndexWriteUnits(before[n], after[n], described[n] as TableDescription), 0) : 0;
      },
    );
  }

  private describe(table: string): Promise<TableDescription> {
    let described = this.tables.get(table);
    if (!described) {
      described = this.client.send(new DescribeTableCommand({ TableName: table })).then(({ Table }) => Table ?? {});
      // A table that is not there yet is described again next time.
      described.catch(() => this.forget(table));
      this.tables.set(table, described);
    }
    return described;
  }

  private read(targets: Target[]): Promise<(RawItem | undefined)[] | null> {
    return Promise.all(
      targets.map(async ({ table, key }) => (await this.client.send(new GetItemCommand({ TableName: table, Key: sdkKey(key), ConsistentRead: true }))).Item),
    ).catch(() => null);
  }

  /** Runs `work` once every earlier holder of any of `keys` is done; registering at once keeps batches from deadlocking. */
  private async holding<T>(keys: string[], work: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const earlier = unique.map((key) => this.tails.get(key));
    let release = () => {};
    const done = new Promise<void>((resolve) => (release = resolve));
    for (const key of unique) this.tails.set(key, done);
    await Promise.all(earlier);
    try {
      return await work();
    } finally {
      release();
      for (const key of unique) if (this.tails.get(key) === done) this.tails.delete(key);
    }
  }
}

/** The items a write request touches: by key, or by the item a put writes. */
type ItemWrite = { table: string; key?: WireKey; item?: WireKey };
function itemWrites(operation: string, request: Record<string, any>): ItemWrite[] {
  if (operation === 'BatchWriteItem')
    return Object.entries((request.RequestItems ?? {}) as Record<string, any[]>).flatMap(([table, requests]) =>
      (Array.isArray(requests) ? requests : []).flatMap((entry): ItemWrite[] => {
        if (entry?.DeleteRequest?.Key) return [{ table, key: entry.DeleteRequest.Key as WireKey }];
        return entry?.PutRequest?.Item ? [{ table, item: entry.PutRequest.Item as WireKey }] : [];
      }),
    );
  if (operation === 'TransactWriteItems')
    return (Array.isArray(request.TransactItems) ? request.TransactItems : []).flatMap((entry: Record<string, any>): ItemWrite[] => {
      const action = entry?.Put ?? entry?.Update ?? entry?.Delete;
      if (typeof action?.TableName !== 'string') return [];
      return entry.Put ? [{ table: action.TableName, item: action.Item as WireKey }] : [{ table: action.TableName, key: action.Key as WireKey }];
    });
  if (typeof request.TableName !== 'string') return [];
  if (operation === 'PutItem') return request.Item ? [{ table: request.TableName, item: request.Item as WireKey }] : [];
  return request.Key ? [{ table: request.TableName, key: request.Key as WireKey }] : [];
}

function keyOf(item: WireKey | undefined, table: TableDescription): WireKey {
  return Object.fromEntries((table.KeySchema ?? []).map(({ AttributeName = '' }) => [AttributeName, item?.[AttributeName] ?? {}]));
}

/** The SDK takes binary as bytes, where the wire carries base64. */
function sdkKey(key: WireKey): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(key).map(([name, value]) => [name, (typeof value.B === 'string' ? { B: Buffer.from(value.B, 'base64') } : value) as AttributeValue]),
  );
}
