import { CreateTableCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDynalite, type DynaliteServer } from '../../emulator/dynalite.js';

const TableName = 'things';
let table = 0;

describe("the emulation's DynamoDB runs TransactWriteItems, which dynalite lacks, as DynamoDB does", () => {
  let dynalite: DynaliteServer;
  let client: DynamoDBDocumentClient;
  let name = TableName;
  beforeAll(async () => {
    dynalite = await startDynalite();
    client = DynamoDBDocumentClient.from(dynalite.client);
  });
  afterAll(() => dynalite.close());
  beforeEach(async () => {
    name = `${TableName}-${(table += 1)}`;
    await dynalite.client.send(
      new CreateTableCommand({
        TableName: name,
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });
  const read = async (id: string) => (await client.send(new GetCommand({ TableName: name, Key: { id }, ConsistentRead: true }))).Item;
  const refusal = (write: Promise<unknown>) =>
    write.then(
      () => null,
      (error: Error) => error,
    );

  it('applies every action when every condition holds', async () => {
    await client.send(new PutCommand({ TableName: name, Item: { id: 'b', n: 1 } }));
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: name, Item: { id: 'a', n: 1 }, ConditionExpression: 'attribute_not_exists(id)' } },
          { Update: { TableName: name, Key: { id: 'b' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
          { Delete: { TableName: name, Key: { id: 'c' } } },
        ],
      }),
    );
    expect([await read('a'), await read('b')]).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
  });

  it('applies none when one condition fails, and names each action’s reason', async () => {
    await client.send(new PutCommand({ TableName: name, Item: { id: 'b', n: 1 } }));
    await client.send(new PutCommand({ TableName: name, Item: { id: 'c', n: 7 } }));
    const error = await refusal(
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: name, Item: { id: 'a', n: 1 } } },
            { Update: { TableName: name, Key: { id: 'b' }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } } },
            { ConditionCheck: { TableName: name, Key: { id: 'c' }, ConditionExpression: 'n = :eight', ExpressionAttributeValues: { ':eight': 8 } } },
          ],
        }),
      ),
    );
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map(({ Code }) => Code)).toEqual(['None', 'None', 'ConditionalCheckFailed']);
    expect([await read('a'), await read('b'), await read('c')]).toEqual([undefined, { id: 'b', n: 1 }, { id: 'c', n: 7 }]);
  });

  it('refuses two actions on one item, and more than 100 actions, with a ValidationException', async () => {
    const twice = await refusal(
      client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: name, Item: { id: 'a', n: 1 } } }, { Delete: { TableName: name, Key: { id: 'a' } } }],
        }),
      ),
    );
    expect(twice?.name).toBe('ValidationException');
    const many = Array.from({ length: 101 }, (_, n) => ({ Put: { TableName: name, Item: { id: `item-${n}` } } }));
    expect((await refusal(client.send(new TransactWriteCommand({ TransactItems: many }))))?.name).toBe('ValidationException');
    expect(await read('a')).toBeUndefined();
    expect(await read('item-0')).toBeUndefined();
  });

  it('answers a ClientRequestToken sent again as the first time, without applying it again; with other actions, a mismatch', async () => {
    const adding = (by: number) =>
      new TransactWriteCommand({
        ClientRequestToken: 'token-1',
        TransactItems: [{ Update: { TableName: name, Key: { id: 'a' }, UpdateExpression: 'ADD n :by', ExpressionAttributeValues: { ':by': by } } }],
      });
    await client.send(adding(1));
    await client.send(adding(1));
    expect(await read('a')).toEqual({ id: 'a', n: 1 });
    expect((await refusal(client.send(adding(2))))?.name).toBe('IdempotentParameterMismatchException');
  });

  it('is held up by no client that sends its body slowly, or leaves in the middle of one', async () => {
    const port = new URL(dynalite.endpoint).port;
    const rawRequest = (target: string, length: number, body: string) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-amz-target: DynamoDB_20120810.${target}\r\ncontent-type: application/x-amz-json-1.0\r\n` +
          `authorization: AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n` +
          `x-amz-date: 20260101T000000Z\r\ncontent-length: ${length}\r\n\r\n${body}`,
      );
      return socket;
    };
    const slow = rawRequest('GetItem', 100, '{"TableName":');
    const leaving = rawRequest('TransactWriteItems', 100, '{"TransactItems":');
    await new Promise((resolve) => setTimeout(resolve, 100));
    leaving.destroy();
    await client.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: name, Item: { id: 'a', n: 1 } } }] }));
    expect(await read('a')).toEqual({ id: 'a', n: 1 });
    slow.destroy();
  });

  it('never shows a reader a transaction half applied', async () => {
    const writes = Array.from({ length: 60 }, (_, n) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: name, Item: { id: 'a', n } } }, { Put: { TableName: name, Item: { id: 'b', n } } }],
        }),
      ),
    );
    const reads = Array.from({ length: 60 }, async () => {
      const answer = await client.send(new BatchGetCommand({ RequestItems: { [name]: { Keys: [{ id: 'a' }, { id: 'b' }], ConsistentRead: true } } }));
      const [first, second] = answer.Responses?.[name] ?? [];
      return first?.n === second?.n;
    });
    const [, seen] = await Promise.all([Promise.all(writes), Promise.all(reads)]);
    expect(seen.every((same) => same)).toBe(true);
  });
});
