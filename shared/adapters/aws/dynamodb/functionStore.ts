import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FunctionRecord } from '../../../domain/function.js';
import type { FunctionStore } from '../../../ports/store.js';
import { writeIf } from './conditionalWrite.js';
import type { DynamoDbContext, Item } from './context.js';
import { getItem, getItemByIndex } from './itemReads.js';
import { dataOf, withData } from './jsonData.js';
import { collect, pageSizeFor, queryItems } from './pagedItems.js';
import { BY_ID_INDEX } from './tables.js';

const toItem = (fn: FunctionRecord): Item => withData({ owner_name: fn.ownerName, name: fn.name, id: fn.id }, fn);

const toFunction = (item: Item | null): FunctionRecord | null => (item ? dataOf<FunctionRecord>(item) : null);

export function dynamoDbFunctionStore(context: DynamoDbContext): FunctionStore {
  const TableName = context.tables.functions;
  return {
    async create(fn) {
      return writeIf(() => context.client.send(new PutCommand({ TableName, Item: toItem(fn), ConditionExpression: 'attribute_not_exists(owner_name)' })));
    },
    async get(ownerName, name) {
      return toFunction(await getItem(context, TableName, { owner_name: ownerName, name }));
    },
    async getById(id) {
      return toFunction(await getItemByIndex(context, TableName, BY_ID_INDEX, 'id', id));
    },
    async put(fn) {
      // Replaces only the function of that id: never creates one, never overwrites another.
      await writeIf(() =>
        context.client.send(new PutCommand({ TableName, Item: toItem(fn), ConditionExpression: 'id = :id', ExpressionAttributeValues: { ':id': fn.id } })),
      );
    },
    async listByOwner(ownerName, page) {
      const items = queryItems(context, {
        TableName,
        KeyConditionExpression: 'owner_name = :owner',
        ExpressionAttributeValues: { ':owner': ownerName },
        Limit: pageSizeFor(page),
      });
      return (await collect(items, page)).map((item) => dataOf<FunctionRecord>(item));
    },
  };
}
