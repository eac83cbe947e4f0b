import type { Organization } from '../../../domain/organization.js';
import type { OrganizationLimits } from '../../../domain/organizationLimits.js';
import type { OrganizationStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

interface OrganizationRow {
  id: string;
  name: string;
  created_at: number;
  webhook_secret: string | null;
  limits: string | null;
  budget_warned_month: string | null;
}

const COLUMNS = 'id, name, created_at, webhook_secret, limits, budget_warned_month';

const toOrganization = (row: OrganizationRow): Organization => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  webhookSecret: row.webhook_secret,
  ...(row.limits === null ? {} : { limits: JSON.parse(row.limits) as OrganizationLimits }),
  ...(row.budget_warned_month === null ? {} : { budgetWarnedMonth: row.budget_warned_month }),
});

export function sqliteOrganizationStore(db: SqliteDatabase, writes: GroupCommit): OrganizationStore {
  const insert = db.prepare<[string, string, number, string | null]>(
    'INSERT INTO organizations (id, name, created_at, webhook_secret) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
  );
  const byName = db.prepare<[string], OrganizationRow>(`SELECT ${COLUMNS} FROM organizations WHERE name = ?`);
  const byId = db.prepare<[string], OrganizationRow>(`SELECT ${COLUMNS} FROM organizations WHERE id = ?`);
  const all = db.prepare<[], OrganizationRow>(`SELECT ${COLUMNS} FROM organizations ORDER BY name`);
  const setSecret = db.prepare<[string, string]>('UPDATE organizations SET webhook_secret = ? WHERE id = ?');
  const setLimits = db.prepare<[string, string]>('UPDATE organizations SET limits = ? WHERE id = ?');
  const markWarned = db.prepare<[string, string, string]>(
    'UPDATE organizations SET budget_warned_month = ? WHERE id = ? AND (budget_warned_month IS NULL OR budget_warned_month <> ?)',
  );
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
    async list() {
      return all.all().map(toOrganization);
    },
    async setLimits(id, limits) {
      return writes.write(() => {
        setLimits.run(JSON.stringify(limits), id);
        const row = byId.get(id);
        return row ? toOrganization(row) : null;
      });
    },
    async markBudgetWarned(id, month) {
      return writes.write(() => markWarned.run(month, id, month).changes === 1);
    },
  };
}
