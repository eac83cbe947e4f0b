import type { Organization } from '../../../domain/organization.js';
import type { OrganizationStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
}

const toOrganization = (row: OrganizationRow): Organization => ({ id: row.id, name: row.name, createdAt: row.created_at });

export function sqliteOrganizationStore(db: SqliteDatabase, writes: GroupCommit): OrganizationStore {
  const insert = db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING');
  const byName = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE name = ?');
  const byId = db.prepare<[string], OrganizationRow>('SELECT * FROM organizations WHERE id = ?');
  return {
    async createIfAbsent(organization) {
      return writes.write(() => {
        insert.run(organization.id, organization.name, organization.createdAt);
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
  };
}
