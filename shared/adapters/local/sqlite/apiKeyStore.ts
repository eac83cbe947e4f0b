import type { ApiKey } from '../../../domain/apiKey.js';
import type { ApiKeyStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface ApiKeyRow {
  id: string;
  organization_id: string;
  hash: string;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
}

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  organizationId: row.organization_id,
  hash: row.hash,
  prefix: row.prefix,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

export function sqliteApiKeyStore(db: SqliteDatabase, writes: GroupCommit): ApiKeyStore {
  const insert = db.prepare('INSERT INTO api_keys (id, organization_id, hash, prefix, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byHash = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE hash = ?');
  const all = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
  const byOrganization = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE organization_id = ? ORDER BY created_at, id');
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  // One statement: the check for another active key and the revocation cannot be split by another write.
  const revokeKeepingOne = db.prepare(
    `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND organization_id = ? AND revoked_at IS NULL
       AND EXISTS (SELECT 1 FROM api_keys other WHERE other.organization_id = api_keys.organization_id AND other.id != api_keys.id AND other.revoked_at IS NULL)`,
  );
  const activeById = db.prepare<[string, string], { id: string }>('SELECT id FROM api_keys WHERE id = ? AND organization_id = ? AND revoked_at IS NULL');
  return {
    async create(key) {
      await writes.write(() => insert.run(key.id, key.organizationId, key.hash, key.prefix, key.createdAt, key.revokedAt));
    },
    async getByHash(hash) {
      const row = byHash.get(hash);
      return row ? toApiKey(row) : null;
    },
    async list(organizationId) {
      const rows = organizationId === undefined ? all.all() : byOrganization.all(organizationId);
      return rows.map(toApiKey);
    },
    async revoke(id, at) {
      return writes.write(() => revoke.run(at, id).changes === 1);
    },
    async revokeKeepingOne(id, organizationId, at) {
      return writes.write(() => {
        if (revokeKeepingOne.run(at, id, organizationId).changes === 1) return 'revoked';
        return activeById.get(id, organizationId) ? 'last' : 'absent';
      });
    },
  };
}
