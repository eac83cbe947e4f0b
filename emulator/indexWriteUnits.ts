import type { AttributeValue, GlobalSecondaryIndexDescription, TableDescription } from '@aws-sdk/client-dynamodb';

/**
 * Write units a write costs a table's global secondary indexes, by DynamoDB's documented rules
 * (developer guide, "Provisioned throughput considerations for Global Secondary Indexes" and
 * "Item sizes"): dynalite reports a write's table units but never its indexes'. An entry's size
 * is its attributes' names and values (the index's keys, the table's keys, the projected
 * attributes), without the 100 bytes per entry the guide adds for storage only.
 */
export type RawItem = Record<string, AttributeValue>;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A number takes about one byte per two significant digits, plus one. */
const numberBytes = (text: string) => {
  const significant = text
    .replace(/[eE].*$/, '')
    .replace(/[-+.]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(significant.length / 2) + 1;
};

/** Binary as the SDK gives it, or base64 as the wire carries it. */
const binaryBytes = (value: Uint8Array | string) => (typeof value === 'string' ? Buffer.from(value, 'base64').length : value.byteLength);

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return binaryBytes(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.M !== undefined) return 3 + Object.keys(value.M).length + itemBytes(value.M);
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + utf8(element), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, element) => sum + numberBytes(element), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, element) => sum + binaryBytes(element), 0);
  throw new Error(`no size rule for ${JSON.stringify(value)}`);
}

/** An item's size: each attribute's name and value. */
export function itemBytes(item: RawItem): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0);
}

/** The entry an item makes in an index (its keys and projected attributes), or null when it lacks the index's keys. */
export function indexEntry(item: RawItem | undefined, index: GlobalSecondaryIndexDescription, tableKeys: string[]): RawItem | null {
  const indexKeys = (index.KeySchema ?? []).map((key) => key.AttributeName ?? '');
  if (!item || indexKeys.some((key) => item[key] === undefined)) return null;
  const projection = index.Projection ?? {};
  const kept =
    projection.ProjectionType === 'ALL'
      ? Object.keys(item)
      : [...tableKeys, ...indexKeys, ...(projection.ProjectionType === 'INCLUDE' ? (projection.NonKeyAttributes ?? []) : [])];
  return Object.fromEntries(kept.flatMap((name) => (item[name] === undefined ? [] : [[name, item[name]] as const])));
}

const units = (entry: RawItem) => Math.max(1, Math.ceil(itemBytes(entry) / 1024));
const same = (a: RawItem, b: RawItem) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * What a write from `before` to `after` (undefined: no item) costs an index: nothing when its
 * entry does not change, the new entry's units when it appears or changes in place, the old
 * one's when it goes, and both when its keys change (a delete and a put).
 */
export function indexWriteUnits(before: RawItem | undefined, after: RawItem | undefined, index: GlobalSecondaryIndexDescription, tableKeys: string[]): number {
  const old = indexEntry(before, index, tableKeys);
  const next = indexEntry(after, index, tableKeys);
  if (!old) return next ? units(next) : 0;
  if (!next) return units(old);
  if (same(old, next)) return 0;
  const keysMoved = (index.KeySchema ?? []).some(({ AttributeName = '' }) => JSON.stringify(old[AttributeName]) !== JSON.stringify(next[AttributeName]));
  return keysMoved ? units(old) + units(next) : units(next);
}

/** What a write from `before` to `after` costs all of a table's global secondary indexes. */
export function tableIndexWriteUnits(before: RawItem | undefined, after: RawItem | undefined, table: TableDescription): number {
  const tableKeys = (table.KeySchema ?? []).map((key) => key.AttributeName ?? '');
  return (table.GlobalSecondaryIndexes ?? []).reduce((sum, index) => sum + indexWriteUnits(before, after, index, tableKeys), 0);
}
