import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { KeyService } from '../../shared/services/keyService.js';
import { api, until } from '../e2e/support/testService.js';
import { startAwsTarget, type AwsTarget } from './targets.js';

/**
 * The /v2/keys routes on `npm run aws:local`'s deployment: each route its own Lambda on the
 * DynamoDB store, the key cache of each Lambda its own (test/e2e/keyRoutes.test.ts has the
 * whole behaviour on the local service).
 */
describe('API key routes on AWS', () => {
  let target: AwsTarget;
  let otherKey: string;
  const status = async (key: string) => (await api(target.url, key, 'GET', '/v2/organization')).status;

  beforeAll(async () => {
    target = await startAwsTarget();
    // Another organization, made as the operator makes one (`sluice keys create` on the tables).
    const store = createDynamoDbStore({ tablePrefix: 'sluice-', client: createDocumentClient(target.clients.dynamoDb) });
    otherKey = (await new KeyService(store, createSystemClock()).createKey('other')).secret;
  }, 180_000);
  afterAll(async () => target?.close());

  it('creates, lists and revokes an organization’s keys; another organization sees none of them and revokes none', async () => {
    const created = await api(target.url, target.key, 'POST', '/v2/keys');
    expect(created.status).toBe(201);
    await until(async () => (await status(created.body.secret)) === 200, 10_000, 200);

    const listed = await api(target.url, created.body.secret, 'GET', '/v2/keys');
    expect(listed.body.data.map((key: any) => key.current)).toEqual([false, true]);
    const [bootstrapId] = listed.body.data.map((key: any) => key.id);

    const others = await api(target.url, otherKey, 'GET', '/v2/keys');
    expect(others.body.data).toHaveLength(1);
    expect(JSON.stringify(others.body)).not.toContain(created.body.id);
    expect(await api(target.url, otherKey, 'DELETE', `/v2/keys/${created.body.id}`)).toEqual({ status: 404, body: { detail: 'API key not found.' } });
    expect((await api(target.url, otherKey, 'DELETE', `/v2/keys/${others.body.data[0].id}`)).status).toBe(409);

    // Rotation: the new key revokes the bootstrap key; the old key is refused once every Lambda's cache has let it go.
    const revoked = await api(target.url, created.body.secret, 'DELETE', `/v2/keys/${bootstrapId}`);
    expect(revoked.status).toBe(200);
    await until(async () => (await status(target.key)) === 401, 15_000, 500);
    expect(await status(created.body.secret)).toBe(200);
    const last = await api(target.url, created.body.secret, 'DELETE', `/v2/keys/${created.body.id}`);
    expect(last.status).toBe(409);
    expect(last.body.detail).toMatch(/last active key/);
  }, 120_000);
});
