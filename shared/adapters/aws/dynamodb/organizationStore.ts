import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../../../domain/organization.js';
import type { OrganizationStore } from '../../../ports/store.js';
import { writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem, getItemByIndex } from './itemReads.js';
import { BY_ID_INDEX } from './tables.js';

// An organization without a webhook secret has no webhook_secret attribute (as those made
// before secrets existed do not), and reads back as null.
const toItem = (organization: Organization): Item => ({
  name: organization.name,
  id: organization.id,
  created_at: organization.createdAt,
  ...(organization.webhookSecret === null ? {} : { webhook_secret: organization.webhookSecret }),
});

const toOrganization = (item: Item): Organization => ({
  id: item.id as string,
  name: item.name as string,
  createdAt: item.created_at as number,
  webhookSecret: (item.webhook_secret as string | undefined) ?? null,
});

export function dynamoDbOrganizationStore(context: DynamoDbContext): OrganizationStore {
  const TableName = context.tables.organizations;
  const getByName = async (name: string) => {
    const item = await getItem(context, TableName, { name });
    return item ? toOrganization(item) : null;
  };
  return {
    async createIfAbsent(organization) {
      const item = toItem(organization);
      // The name is the key, so the condition makes names unique without a transaction.
      const created = await writeIf(() =>
        context.client.send(
          new PutCommand({ TableName, Item: item, ConditionExpression: 'attribute_not_exists(#name)', ExpressionAttributeNames: { '#name': 'name' } }),
        ),
      );
      return created ? toOrganization(item) : ((await getByName(organization.name)) as Organization);
    },
    getByName,
    async getById(id) {
      const item = await getItemByIndex(context, TableName, BY_ID_INDEX, 'id', id);
      return item ? toOrganization(item) : null;
    },
    async setWebhookSecret(id, secret) {
      // The key is the name: found through by_id, then updated only while it still has this id,
      // so an unknown id creates nothing.
      const item = await getItemByIndex(context, TableName, BY_ID_INDEX, 'id', id);
      if (!item) return;
      await writeIf(() =>
        context.client.send(
          new UpdateCommand({
            TableName,
            Key: { name: item.name },
            UpdateExpression: 'SET webhook_secret = :secret',
            ConditionExpression: 'id = :id',
            ExpressionAttributeValues: { ':secret': secret, ':id': id },
          }),
        ),
      );
    },
  };
}
