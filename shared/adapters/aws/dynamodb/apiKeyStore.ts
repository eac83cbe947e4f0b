import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '../../../domain/apiKey.js';
import type { ApiKeyStore } from '../../../ports/store.js';
import { writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem, getItemByIndex } from './itemReads.js';
import { collect, queryItems, scanItems } from './pagedItems.js';
import { revokeKeepingOne } from './revokeKeepingOne.js';
import { BY_ID_INDEX, BY_ORGANIZATION_INDEX } from './tables.js';

// An unrevoked key has no revoked_at attribute, so "not yet revoked" is attribute_not_exists.
const toItem = (key: ApiKey): Item => ({
  hash: key.hash,
  id: key.id,
  organization_id: key.organizationId,
  prefix: key.prefix,
  created_at: key.createdAt,
  ...(key.revokedAt === null ? {} : { revoked_at: key.revokedAt }),
});

const toApiKey = (item: Item): ApiKey => ({
  id: item.id as string,
  organizationId: item.organization_id as string,
  hash: item.hash as string,
  prefix: item.prefix as string,
  createdAt: item.created_at as number,
  revokedAt: (item.revoked_at as number | undefined) ?? null,
});

const oldestFirst = (a: ApiKey, b: ApiKey) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function dynamoDbApiKeyStore(context: DynamoDbContext): ApiKeyStore {
  const TableName = context.tables.apiKeys;
  const list: ApiKeyStore['list'] = async (organizationId) => {
    const items =
      organizationId === undefined
        ? scanItems(context, { TableName })
        : queryItems(context, {
            TableName,
            IndexName: BY_ORGANIZATION_INDEX,
            KeyConditionExpression: 'organization_id = :organization',
            ExpressionAttributeValues: { ':organization': organizationId },
          });
    // Sorted here: a scan has no order, and the index leaves keys created the same microsecond unordered.
    return (await collect(items)).map(toApiKey).sort(oldestFirst);
  };
  return {
    async create(key) {
      // A second key with the same hash is refused (it throws), as a unique column would.
      await context.client.send(
        new PutCommand({ TableName, Item: toItem(key), ConditionExpression: 'attribute_not_exists(#hash)', ExpressionAttributeNames: { '#hash': 'hash' } }),
      );
    },
    async getByHash(hash) {
      const item = await getItem(context, TableName, { hash });
      return item ? toApiKey(item) : null;
    },
    list,
    async revokeKeepingOne(id, organizationId, at) {
      return revokeKeepingOne(context, TableName, await list(organizationId), id, organizationId, at);
    },
    async revoke(id, at) {
      const item = await getItemByIndex(context, TableName, BY_ID_INDEX, 'id', id);
      if (!item) return false;
      return writeIf(() =>
        context.client.send(
          new UpdateCommand({
            TableName,
            Key: { hash: item.hash },
            UpdateExpression: 'SET revoked_at = :at',
            ConditionExpression: 'id = :id AND attribute_not_exists(revoked_at)',
            ExpressionAttributeValues: { ':at': at, ':id': id },
          }),
        ),
      );
    },
  };
}
