/**
 * Write sharding: an index whose partition key would carry one hot stream (an organization's
 * jobs, the delivery backlog) keys each item by `<base><n>` instead, n one of a few shards fixed
 * by the item's id, so writes spread over that many index partitions. Readers query every shard
 * and merge (mergedItems.ts).
 */
export interface Shards {
  /** The shard key of the item with this id. */
  of(base: string, id: string): string;
  /** Every shard key of `base`. */
  all(base: string): string[];
}

/** A stable hash of the id (the same in every process), modulo the count. */
function shardNumber(id: string, count: number): number {
  let hash = 0;
  for (let index = 0; index < id.length; index++) hash = (hash * 31 + id.charCodeAt(index)) >>> 0;
  return hash % count;
}

export function shards(count: number): Shards {
  return {
    of: (base, id) => `${base}${shardNumber(id, count)}`,
    all: (base) => Array.from({ length: count }, (_, shard) => `${base}${shard}`),
  };
}
