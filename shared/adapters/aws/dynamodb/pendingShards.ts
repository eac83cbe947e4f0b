import { shards } from './shards.js';

/**
 * The partitions of the sparse pending indexes: every pending delivery is in one (by its id), no
 * other delivery is. Sharded, so that a burst of deliveries does not write one index partition.
 */
const PENDING_SHARDS = shards(4);
const PENDING = 'pending#';

export const pendingShardOf = (deliveryId: string) => PENDING_SHARDS.of(PENDING, deliveryId);
export const pendingShards = () => PENDING_SHARDS.all(PENDING);
