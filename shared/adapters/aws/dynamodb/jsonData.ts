import type { Item } from './context.js';

/**
 * Records with many nested fields are kept as JSON in a `data` attribute beside the attributes
 * that keys, indexes and conditions need: JSON round-trips them exactly as the SQLite adapter
 * does, where DynamoDB numbers would refuse values such as 1e300 or 2^60 in an input's default.
 */
export function withData(attributes: Item, record: object): Item {
  return { ...attributes, data: JSON.stringify(record) };
}

export function dataOf<T>(item: Item): T {
  return JSON.parse(item.data as string) as T;
}
