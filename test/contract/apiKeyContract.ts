import { describe, expect, it } from 'vitest';
import { anApiKey } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

export function describeApiKeyContract(store: CurrentStore): void {
  describe('api keys', () => {
    it('getByHash returns a created key with every field', async () => {
      const key = anApiKey();
      await store().apiKeys.create(key);
      expect(await store().apiKeys.getByHash(key.hash)).toEqual(key);
    });

    it('getByHash returns null for an unknown hash', async () => {
      await store().apiKeys.create(anApiKey());
      expect(await store().apiKeys.getByHash('0'.repeat(64))).toBeNull();
    });

    it('create refuses a second key with the same hash', async () => {
      const key = anApiKey();
      await store().apiKeys.create(key);
      await expect(store().apiKeys.create(anApiKey({ hash: key.hash }))).rejects.toThrow();
      expect(await store().apiKeys.getByHash(key.hash)).toEqual(key);
    });

    it('list without an organization returns every key, oldest first', async () => {
      const newest = anApiKey({ organizationId: 'org-a', createdAt: 300 });
      const oldest = anApiKey({ organizationId: 'org-b', createdAt: 100 });
      const middle = anApiKey({ organizationId: 'org-a', createdAt: 200 });
      for (const key of [newest, oldest, middle]) await store().apiKeys.create(key);
      expect(await store().apiKeys.list()).toEqual([oldest, middle, newest]);
    });

    it("list with an organization returns only that organization's keys, oldest first", async () => {
      const later = anApiKey({ organizationId: 'org-a', createdAt: 300 });
      const other = anApiKey({ organizationId: 'org-b', createdAt: 100 });
      const earlier = anApiKey({ organizationId: 'org-a', createdAt: 200 });
      for (const key of [later, other, earlier]) await store().apiKeys.create(key);
      expect(await store().apiKeys.list('org-a')).toEqual([earlier, later]);
      expect(await store().apiKeys.list('org-none')).toEqual([]);
    });

    it('list orders keys created the same microsecond by id', async () => {
      const keys = ['c', 'a', 'b'].map((id) => anApiKey({ id, createdAt: 100 }));
      for (const key of keys) await store().apiKeys.create(key);
      expect((await store().apiKeys.list('org-1')).map((key) => key.id)).toEqual(['a', 'b', 'c']);
    });

    it('revoke marks the key revoked at the given time; list still shows it', async () => {
      const key = anApiKey();
      await store().apiKeys.create(key);
      expect(await store().apiKeys.revoke(key.id, 12_345)).toBe(true);
      const revoked = { ...key, revokedAt: 12_345 };
      expect(await store().apiKeys.getByHash(key.hash)).toEqual(revoked);
      expect(await store().apiKeys.list(key.organizationId)).toEqual([revoked]);
    });

    it('revoke returns true once, then false, and keeps the first revocation time', async () => {
      const key = anApiKey();
      await store().apiKeys.create(key);
      expect(await store().apiKeys.revoke(key.id, 1)).toBe(true);
      expect(await store().apiKeys.revoke(key.id, 2)).toBe(false);
      expect((await store().apiKeys.getByHash(key.hash))?.revokedAt).toBe(1);
    });

    it('revoke returns false for an unknown id and changes no key', async () => {
      const key = anApiKey();
      await store().apiKeys.create(key);
      expect(await store().apiKeys.revoke('no-such-id', 1)).toBe(false);
      expect(await store().apiKeys.getByHash(key.hash)).toEqual(key);
    });

    it('revoke leaves the other keys of the organization alone', async () => {
      const first = anApiKey({ createdAt: 1 });
      const second = anApiKey({ createdAt: 2 });
      await store().apiKeys.create(first);
      await store().apiKeys.create(second);
      await store().apiKeys.revoke(first.id, 9);
      expect(await store().apiKeys.getByHash(second.hash)).toEqual(second);
    });

    it('revokeKeepingOne revokes a key while another key of its organization stays active', async () => {
      const [old, fresh] = [anApiKey({ createdAt: 1 }), anApiKey({ createdAt: 2 })];
      for (const key of [old, fresh]) await store().apiKeys.create(key);
      expect(await store().apiKeys.revokeKeepingOne(old.id, 'org-1', 7)).toBe('revoked');
      expect(await store().apiKeys.list('org-1')).toEqual([{ ...old, revokedAt: 7 }, fresh]);
    });

    it("revokeKeepingOne refuses an organization's last active key (another organization's keys do not count)", async () => {
      const last = anApiKey({ createdAt: 1 });
      const revokedBefore = anApiKey({ createdAt: 2, revokedAt: 3 });
      for (const key of [last, revokedBefore, anApiKey({ organizationId: 'org-2' })]) await store().apiKeys.create(key);
      expect(await store().apiKeys.revokeKeepingOne(last.id, 'org-1', 7)).toBe('last');
      expect(await store().apiKeys.getByHash(last.hash)).toEqual(last);
    });

    it("revokeKeepingOne answers absent for another organization's key, an unknown id or a revoked key, changing nothing", async () => {
      const theirs = anApiKey({ organizationId: 'org-2' });
      const revoked = anApiKey({ revokedAt: 3 });
      for (const key of [theirs, anApiKey({ organizationId: 'org-2' }), revoked, anApiKey(), anApiKey()]) await store().apiKeys.create(key);
      expect(await store().apiKeys.revokeKeepingOne(theirs.id, 'org-1', 7)).toBe('absent');
      expect(await store().apiKeys.revokeKeepingOne('no-such-id', 'org-1', 7)).toBe('absent');
      expect(await store().apiKeys.revokeKeepingOne(revoked.id, 'org-1', 7)).toBe('absent');
      expect(await store().apiKeys.getByHash(theirs.hash)).toEqual(theirs);
      expect((await store().apiKeys.getByHash(revoked.hash))?.revokedAt).toBe(3);
    });

    it('leaves a key active when revocations of the last two race', async () => {
      for (let round = 0; round < 5; round++) {
        const organizationId = `org-race-${round}`;
        const keys = [anApiKey({ organizationId }), anApiKey({ organizationId })];
        for (const key of keys) await store().apiKeys.create(key);
        const answers = await Promise.all(keys.map((key) => store().apiKeys.revokeKeepingOne(key.id, organizationId, 7)));
        expect(answers.filter((answer) => answer === 'revoked').length).toBeLessThanOrEqual(1);
        expect(answers.every((answer) => answer === 'revoked' || answer === 'last')).toBe(true);
        const active = (await store().apiKeys.list(organizationId)).filter((key) => key.revokedAt === null);
        expect(active.length).toBe(2 - answers.filter((answer) => answer === 'revoked').length);
      }
    });
  });
}
