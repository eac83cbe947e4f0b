import { mkdtempSync, statSync, chmodSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('the SQLite store file', () => {
  it('is readable by its owner only, even in a data directory others may enter', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-mode-'));
    chmodSync(dir, 0o755);
    const store = createSqliteStore(join(dir, 'sluice.db'));
    await store.organizations.createIfAbsent({ id: 'o1', name: 'acme', createdAt: 1, webhookSecret: null });
    expect(modeOf(join(dir, 'sluice.db'))).toBe(0o600);
    expect(modeOf(join(dir, 'sluice.db-wal'))).toBe(0o600);
    await store.close();
  });

  it('is made owner-only when an older release left it readable by others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-mode-'));
    writeFileSync(join(dir, 'sluice.db'), '');
    chmodSync(join(dir, 'sluice.db'), 0o644);
    const store = createSqliteStore(join(dir, 'sluice.db'));
    expect(modeOf(join(dir, 'sluice.db'))).toBe(0o600);
    await store.close();
  });
});
