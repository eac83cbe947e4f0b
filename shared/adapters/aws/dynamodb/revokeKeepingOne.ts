import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '../../../domain/apiKey.js';
import type { KeepingOneRevocation } from '../../../ports/store.js';
import { writeIf } from './conditionalWrite.js';
import type { DynamoDbContext } from './context.js';
import { getItem } from './itemReads.js';

/**
 * Revokes `id` unless no other key of the organization would stay active.
 *
 * DynamoDB's only way to check one item and write another is a transaction, which dynalite
 * (the local emulation's DynamoDB) lacks, so the revocation is written first and checked after:
 * the key is revoked (still active, and this organization's), then the organization's other
 * keys are read again, consistently; if none is active, the revocation is undone and the answer
 * is `last`. Of racing revocations, the one written last sees all the others' and undoes its
 * own, so a key always stays active; at worst each undoes its own and all answer `last`, which
 * loses nothing (the caller tries again).
 *
 * `keys` are the organization's keys as its index lists them; a key created a moment ago may
 * not be among them yet, which can only make the answer `last` (or `absent`), never wrongly `revoked`.
 */
export async function revokeKeepingOne(
  context: DynamoDbContext,
  TableName: string,
  keys: ApiKey[],
  id: string,
  organizationId: string,
  at: number,
): Promise<KeepingOneRevocation> {
  const target = keys.find((key) => key.id === id && key.revokedAt === null);
  if (!target) return 'absent';
  const others = keys.filter((key) => key.id !== id && key.revokedAt === null);
  if (others.length === 0) return 'last';
  const revoked = await writeIf(() =>
    context.client.send(
      new UpdateCommand({
        TableName,
        Key: { hash: target.hash },
        UpdateExpression: 'SET revoked_at = :at',
        ConditionExpression: 'id = :id AND organization_id = :organization AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: { ':at': at, ':id': id, ':organization': organizationId },
      }),
    ),
  );
  if (!revoked) return 'absent';
  for (const other of others) {
    const item = await getItem(context, TableName, { hash: other.hash });
    if (item && item.revoked_at === undefined) return 'revoked';
  }
  await context.client.send(
    new UpdateCommand({
      TableName,
      Key: { hash: target.hash },
      UpdateExpression: 'REMOVE revoked_at',
      ConditionExpression: 'revoked_at = :at',
      ExpressionAttributeValues: { ':at': at },
    }),
  );
  return 'last';
}
