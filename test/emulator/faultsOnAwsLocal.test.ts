import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsTarget, type AwsTarget } from '../acceptance/targets.js';
import { api } from '../e2e/support/testService.js';

/**
 * The faults `npm run soak` injects, on `npm run aws:local`'s whole deployment: the route
 * Lambdas behind the emulated API Gateway, on DynamoDB through its front.
 */
describe('faults injected into npm run aws:local', () => {
  let target: AwsTarget;
  const call = (method: string, path: string) => api(target.url, target.key, method, path);
  const keyIds = async () => ((await call('GET', '/v2/keys')).body.data as { id: string }[]).map((key) => key.id);

  beforeAll(async () => {
    target = await startAwsTarget();
  }, 180_000);
  afterAll(async () => target?.close());

  it('kills a route Lambda after its write: the client gets API Gateway’s error, the key it created exists, and the next request is served', async () => {
    const before = await keyIds();
    target.faults.killLambdaAfterWrite(1);
    expect(await call('POST', '/v2/keys')).toEqual({ status: 500, body: { message: 'Internal Server Error' } });
    expect(await keyIds()).toHaveLength(before.length + 1);
    const created = await call('POST', '/v2/keys');
    expect(created.status).toBe(201);
    expect(await keyIds()).toContain(created.body.id);
    expect(target.faults.counts().lambdasKilled).toBe(1);
  }, 60_000);

  it('refuses the route Lambdas’ DynamoDB calls while a window is open, and serves them again once it closes', async () => {
    target.faults.throttle('dynamodb', 60_000, 1);
    expect((await call('GET', '/v2/keys')).status).toBeGreaterThanOrEqual(500);
    expect(target.faults.counts().services.dynamodb.throttled).toBeGreaterThan(0);
    target.faults.throttle('dynamodb', 0);
    expect((await call('GET', '/v2/keys')).status).toBe(200);
  }, 60_000);
});
