import type { Item } from './context.js';
import type { SpillableText, Spiller } from './spill.js';

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

/** withData for records that may pass an item's size (a job's inputs, an output): `data` spills to S3 when it must. */
export async function withSpillableData(spill: Spiller, owner: string, attributes: Item, record: object, overBytes?: number): Promise<SpillableText> {
  const data = await spill.write('data', JSON.stringify(record), owner, overBytes);
  return { attributes: { ...attributes, ...data.attributes }, spilledKey: data.spilledKey };
}

export async function spillableDataOf<T>(spill: Spiller, item: Item): Promise<T> {
  return JSON.parse(await spill.read(item, 'data')) as T;
}
