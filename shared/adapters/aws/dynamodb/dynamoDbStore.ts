import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Store } from '../../../ports/store.js';
import { dynamoDbApiKeyStore } from './apiKeyStore.js';
import { tableNames, type DynamoDbContext } from './context.js';
import { dynamoDbDeliveryStore } from './deliveryStore.js';
import { dynamoDbFunctionStore } from './functionStore.js';
import { dynamoDbIdempotencyKeyStore } from './idempotencyKeyStore.js';
import { dynamoDbJobStore } from './jobStore.js';
import { dynamoDbLogStore } from './logStore.js';
import { dynamoDbOrganizationStore } from './organizationStore.js';
import { dynamoDbPageEndStore } from './pageEndStore.js';
import { createSpiller, type SpillStorage } from './spill.js';
import { dynamoDbUsageStore } from './usageStore.js';
import { dynamoDbVersionStore } from './versionStore.js';

export interface DynamoDbStoreOptions {
  /** A client to use; when absent the store makes one from the environment and closes it on close(). */
  client?: DynamoDBDocumentClient;
  /** Table names are this followed by each table's suffix (see tables.ts). */
  tablePrefix: string;
  /** How long log lines are kept; 30 days unless told. */
  logRetentionDays?: number;
  /** Milliseconds since the epoch, for log expiry; Date.now unless told. */
  now?: () => number;
  /**
   * Where job inputs, outputs, errors and webhook payloads too large for an item (400 KB) go
   * (the artifacts bucket's spill/). Without it they stay inline, and DynamoDB refuses an item
   * past its limit.
   */
  spill?: SpillStorage;
}

export const DEFAULT_LOG_RETENTION_DAYS = 30;

export function createDocumentClient(client: DynamoDBClient = new DynamoDBClient({})): DynamoDBDocumentClient {
  // An attribute left undefined is dropped rather than refused by the marshaller.
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** The AWS mode's store: one DynamoDB table per record kind. */
export function createDynamoDbStore(options: DynamoDbStoreOptions): Store {
  const client = options.client ?? createDocumentClient();
  const context: DynamoDbContext = { client, tables: tableNames(options.tablePrefix), spill: createSpiller(options.spill) };
  return {
    organizations: dynamoDbOrganizationStore(context),
    apiKeys: dynamoDbApiKeyStore(context),
    functions: dynamoDbFunctionStore(context),
    versions: dynamoDbVersionStore(context),
    logs: dynamoDbLogStore(context, { retentionDays: options.logRetentionDays ?? DEFAULT_LOG_RETENTION_DAYS, now: options.now ?? Date.now }),
    jobs: dynamoDbJobStore(context),
    deliveries: dynamoDbDeliveryStore(context),
    usage: dynamoDbUsageStore(context),
    idempotencyKeys: dynamoDbIdempotencyKeyStore(context),
    pageEnds: dynamoDbPageEndStore(context, options.now),
    // Every write is durable when DynamoDB answers it.
    durable: () => Promise.resolve(),
    async close() {
      // A client passed in belongs to the caller, who may share it.
      if (!options.client) client.destroy();
    },
  };
}
