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
  });
}
