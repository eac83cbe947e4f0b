// Upgrading a deployment to the sharded indexes (docs/deploying-to-aws.md, "Upgrading to narrow
// indexes"): shards the jobs and deliveries written before them. Safe to run again.
// Usage: AWS_REGION=... npx tsx scripts/backfill-index-shards.ts <sluice:tablePrefix, default sluice->
import { createDocumentClient } from '../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { backfillShards } from '../shared/adapters/aws/dynamodb/shardBackfill.js';

const prefix = process.argv[2] ?? 'sluice-';
const done = await backfillShards(createDocumentClient(), prefix);
console.log(`Sharded ${done.jobs} jobs and ${done.deliveries} deliveries of the ${prefix} tables.`);
