import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import type { Store } from '../../shared/ports/store.js';
import { AuthService } from '../../shared/services/authService.js';
import { KeyService } from '../../shared/services/keyService.js';

describe('API key lookups', () => {
  let store: Store;
  let lookups: number;
  let auth: AuthService;
  let keys: KeyService;

  beforeEach(() => {
    store = createSqliteStore(':memory:');
    lookups = 0;
    const getByHash = store.apiKeys.getByHash.bind(store.apiKeys);
    store.apiKeys.getByHash = (hash) => {
      lookups += 1;
      return getByHash(hash);
    };
    auth = new AuthService(store);
    keys = new KeyService(store, createSystemClock(), () => auth.forgetKeys());
  });
  afterEach(() => store.close());

  it('look an unknown key up once, however often it is tried', async () => {
    for (let attempt = 0; attempt < 100; attempt++)
      await expect(auth.authenticate('sk_made-up-key-0123456789')).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(lookups).toBe(1);
  });

  it('accept a key created in this process at once, even one tried just before it existed', async () => {
    const secret = 'sk_a-key-about-to-exist-0123456789';
    await expect(auth.authenticate(secret)).rejects.toMatchObject({ kind: 'unauthorized' });
    await keys.createKey('acme', secret);
    expect((await auth.authenticate(secret)).organizationName).toBe('acme');
  });

  it('refuse a key revoked in this process at once', async () => {
    const { key, secret } = await keys.createKey('acme');
    await auth.authenticate(secret);
    await keys.revokeKey(key.id);
    await expect(auth.authenticate(secret)).rejects.toMatchObject({ kind: 'unauthorized' });
  });

  it('keep the known keys remembered while made-up keys flood in', async () => {
    const { secret } = await keys.createKey('acme');
    await auth.authenticate(secret);
    for (let attempt = 0; attempt < 12_000; attempt++) await auth.authenticate(`sk_flood-${attempt}`).catch(() => undefined);
    const before = lookups;
    await auth.authenticate(secret);
    expect(lookups).toBe(before);
  });
});
