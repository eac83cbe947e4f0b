import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../../../domain/organization.js';
import type { OrganizationLimits } from '../../../domain/organizationLimits.js';
import type { OrganizationStore } from '../../../ports/store.js';
import { ifConditionHolds, writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem, getItemByIndex } from './itemReads.js';
import { collect, scanItems } from './pagedItems.js';
import { BY_ID_INDEX } from './tables.js';

// An organization without a webhook secret has no webhook_secret attribute (as those made
// before secrets existed do not), and reads back as null; one whose limits were never set has
// no limits attribute, nor budget_warned_month before its first warning.
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
  ...(item.limits === undefined ? {} : { limits: item.limits as OrganizationLimits }),
  ...(item.budget_warned_month === undefined ? {} : { budgetWarnedMonth: item.budget_warned_month as string }),
});

export function dynamoDbOrganizationStore(context: DynamoDbContext): OrganizationStore {
  const TableName = context.tables.organizations;
  const getByName = async (name: string) => {
    const item = await getItem(context, TableName, { name });
    return item ? toOrganization(item) : null;
  };
  /**
   * The key is the name: the item is found through by_id, then updated only while it still has
   * this id, so an unknown id creates nothing. Answers the updated item, or undefined.
   */
  const updateById = async (id: string, update: { UpdateExpression: string; ConditionExpression?: string; values: Item; returnNothing?: boolean }) => {
    const item = await getItemByIndex(context, TableName, BY_ID_INDEX, 'id', id);
    if (!item) return undefined;
    const updated = await ifConditionHolds(() =>
      context.client.send(
        new UpdateCommand({
          TableName,
          Key: { name: item.name },
          UpdateExpression: update.UpdateExpression,
          ConditionExpression: ['id = :id', update.ConditionExpression].filter(Boolean).join(' AND '),
          ExpressionAttributeValues: { ':id': id, ...update.values },
          ReturnValues: update.returnNothing ? 'NONE' : 'ALL_NEW',
        }),
      ),
    );
    return updated && (updated.Attributes ?? {});
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
      await updateById(id, { UpdateExpression: 'SET webhook_secret = :secret', values: { ':secret': secret } });
    },
    async list() {
      // A scan, for the operator alone: organizations are few, and no request of theirs lists them.
      const organizations = (await collect(scanItems(context, { TableName }))).map(toOrganization);
      return organizations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async setLimits(id, limits) {
      const updated = await updateById(id, { UpdateExpression: 'SET limits = :limits', values: { ':limits': limits } });
      return updated ? toOrganization(updated) : null;
    },
    async markBudgetWarned(id, month) {
      const updated = await updateById(id, {
        UpdateExpression: 'SET budget_warned_month = :month',
        ConditionExpression: '(attribute_not_exists(budget_warned_month) OR budget_warned_month <> :month)',
        values: { ':month': month },
        // The roles that end jobs may update these attributes only, and read none back (infra/grants.ts).
        returnNothing: true,
      });
      return updated !== undefined;
    },
  };
}
