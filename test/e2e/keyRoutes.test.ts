import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from '../../shared/services/organizationKeys.js';
import type { TestService } from './support/testService.js';
import { api, startTestService } from './support/testService.js';

const UNAUTHORIZED = { status: 401, body: { detail: 'Unauthorized - valid API Key required.' } };
const KEY_FIELDS = ['created_at', 'current', 'id', 'prefix', 'revoked_at'];

describe('an organization manages its own API keys over the API (/v2/keys)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  /** A new organization with one key, and that key's id. */
  async function organization(name: string): Promise<{ key: string; keyId: string }> {
    const key = await service.createOrganization(name);
    const listed = await api(service.url, key, 'GET', '/v2/keys');
    return { key, keyId: listed.body.data[0].id };
  }

  it('lists the organization’s keys oldest first, marking the calling one, never showing a secret or hash', async () => {
    const { key, keyId } = await organization('lister');
    const second = await api(service.url, key, 'POST', '/v2/keys');
    const listed = await api(service.url, second.body.secret, 'GET', '/v2/keys');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: any) => [item.id, item.current])).toEqual([
      [keyId, false],
      [second.body.id, true],
    ]);
    expect(Object.keys(listed.body.data[0]).sort()).toEqual(KEY_FIELDS);
    expect(listed.body.data[0]).toMatchObject({
      prefix: key.slice(0, 9),
      revoked_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/),
    });
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(9));
    expect(JSON.stringify(listed.body)).not.toContain(second.body.secret.slice(9));
  });

  it('creates a key that works at once, answering its secret only in the 201', async () => {
    const { key } = await organization('creator');
    const created = await api(service.url, key, 'POST', '/v2/keys');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ secret: expect.stringMatching(/^sk_[\w-]{43}$/), revoked_at: null, current: false });
    expect(created.body.prefix).toBe(created.body.secret.slice(0, 9));
    expect((await api(service.url, created.body.secret, 'GET', '/v2/organization')).body.name).toBe('creator');
  });

  it('revokes a key: refused at once, listed with its revocation time', async () => {
    const { key } = await organization('revoker');
    const spare = await api(service.url, key, 'POST', '/v2/keys');
    const revoked = await api(service.url, key, 'DELETE', `/v2/keys/${spare.body.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: spare.body.id, current: false, revoked_at: expect.any(String), message: `Revoked API key ${spare.body.id}.` });
    expect(await api(service.url, spare.body.secret, 'GET', '/v2/organization')).toEqual(UNAUTHORIZED);
    const listed = await api(service.url, key, 'GET', '/v2/keys');
    expect(listed.body.data.find((item: any) => item.id === spare.body.id).revoked_at).toBe(revoked.body.revoked_at);
    const again = await api(service.url, key, 'DELETE', `/v2/keys/${spare.body.id}`);
    expect(again).toEqual({ status: 409, body: { detail: `API key ${spare.body.id} is already revoked.` } });
  });

  it('rotates: a new key, then the calling key revoked with the answer saying so', async () => {
    const { key, keyId } = await organization('rotator');
    const fresh = await api(service.url, key, 'POST', '/v2/keys');
    const revoked = await api(service.url, key, 'DELETE', `/v2/keys/${keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.current).toBe(true);
    expect(revoked.body.message).toMatch(/it is the key this request used, so it is refused from now on/);
    expect(await api(service.url, key, 'GET', '/v2/keys')).toEqual(UNAUTHORIZED);
    expect((await api(service.url, fresh.body.secret, 'GET', '/v2/keys')).body.data.map((item: any) => item.revoked_at === null)).toEqual([false, true]);
  });

  it('refuses to revoke the organization’s last active key (409), which keeps working', async () => {
    const { key, keyId } = await organization('lastone');
    const refused = await api(service.url, key, 'DELETE', `/v2/keys/${keyId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/last active key: revoking it would lock the organization out\. Create another key first/);
    expect((await api(service.url, key, 'GET', '/v2/organization')).status).toBe(200);
  });

  it('keeps revocations racing for the last two keys from leaving none active', async () => {
    const { key, keyId } = await organization('racer');
    const other = await api(service.url, key, 'POST', '/v2/keys');
    const answers = await Promise.all([keyId, other.body.id].map((id) => api(service.url, key, 'DELETE', `/v2/keys/${id}`)));
    // One revocation wins; the other finds the last key (409), or comes after its own key went (401).
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => answer.status)).toEqual([expect.toBeOneOf([401, 409])]);
    const working = await Promise.all([key, other.body.secret].map(async (secret) => (await api(service.url, secret, 'GET', '/v2/organization')).status));
    expect(working.sort()).toEqual([200, 401]);
  });

  it('never lets another organization list, revoke or learn about its keys', async () => {
    const a = await organization('victim');
    const aSpare = await api(service.url, a.key, 'POST', '/v2/keys');
    const b = await organization('attacker');
    await api(service.url, b.key, 'POST', '/v2/keys');

    const bList = await api(service.url, b.key, 'GET', '/v2/keys');
    expect(bList.body.data).toHaveLength(2);
    expect(JSON.stringify(bList.body)).not.toContain(a.keyId);
    expect(JSON.stringify(bList.body)).not.toContain(aSpare.body.id);

    // Another organization's key id answers exactly as an id that does not exist.
    const notFound = { status: 404, body: { detail: 'API key not found.' } };
    expect(await api(service.url, b.key, 'DELETE', `/v2/keys/${aSpare.body.id}`)).toEqual(notFound);
    expect(await api(service.url, b.key, 'DELETE', `/v2/keys/${a.keyId}`)).toEqual(notFound);
    expect(await api(service.url, b.key, 'DELETE', '/v2/keys/no-such-key')).toEqual(notFound);
    expect((await api(service.url, aSpare.body.secret, 'GET', '/v2/organization')).body.name).toBe('victim');
    expect((await api(service.url, a.key, 'GET', '/v2/keys')).body.data.every((item: any) => item.revoked_at === null)).toBe(true);
  });

  it('asks for a key on every key route, and refuses a revoked key there', async () => {
    const { key } = await organization('locked');
    const spare = await api(service.url, key, 'POST', '/v2/keys');
    await api(service.url, key, 'DELETE', `/v2/keys/${spare.body.id}`);
    for (const [method, path] of [
      ['GET', '/v2/keys'],
      ['POST', '/v2/keys'],
      ['DELETE', `/v2/keys/${spare.body.id}`],
    ] as const) {
      expect(await api(service.url, undefined, method, path)).toEqual(UNAUTHORIZED);
      expect(await api(service.url, spare.body.secret, method, path)).toEqual(UNAUTHORIZED);
    }
  });

  it(`holds at most ${MAX_ACTIVE_KEYS} active keys per organization, refusing more with 409`, async () => {
    const { key } = await organization('hoarder');
    for (let count = 1; count < MAX_ACTIVE_KEYS; count++) expect((await api(service.url, key, 'POST', '/v2/keys')).status).toBe(201);
    const refused = await api(service.url, key, 'POST', '/v2/keys');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/revoke one it no longer uses first/);
  });
});
