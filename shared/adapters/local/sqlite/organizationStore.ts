import type { Organization } from '../../../domain/organization.js';
import type { OrganizationStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
  webhook_secret: string | null;
}

const toOrganization = (row: OrganizationRow): Organization => ({ id: row.id, name: row.name, createdAt: row.created_at, webhookSecret: row.webhook_secret });

export function sqliteOrganizationStore(db: SqliteDatabase, writes: GroupCommit): OrganizationStore {
  const insert = db.prepare<[string, string, number, string | null]>(
    'INSERT INTO organizations (id, name, created_at, webhook_secret) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
  );
  const byName = db.prepare<[string], OrganizationRow>('SELECT id, name, created_at, webhook_secret FROM organizations WHERE name = ?');
  const byId = db.prepare<[string], OrganizationRow>('SELECT id, name, created_at, webhook_secret FROM organizations WHERE id = ?');
  const setSecret = db.prepare<[string, string]>('UPDATE organizations SET webhook_secret = ? WHERE id = ?');
  return {
    async createIfAbsent(organization) {
      return writes.write(() => {
        insert.run(organization.id, organization.name, organization.createdAt, organization.webhookSecret);
        return toOrganization(byName.get(organization.name) as OrganizationRow);
      });
    },
    async getByName(name) {
      const row = byName.get(name);
      return row ? toOrganization(row) : null;
    },
    async getById(id) {
      const row = byId.get(id);
      return row ? toOrganization(row) : null;
    },
    async setWebhookSecret(id, secret) {
      // An unknown id updates no row: nothing is created.
      await writes.write(() => setSecret.run(secret, id));
    },
  };
}
