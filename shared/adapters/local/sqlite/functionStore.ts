import type { FunctionRecord } from '../../../domain/function.js';
import type { FunctionStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import { RecordCache } from './recordCache.js';

interface DataRow {
  data: string;
}

const parse = (row: DataRow | undefined): FunctionRecord | null => (row ? (JSON.parse(row.data) as FunctionRecord) : null);

export function sqliteFunctionStore(db: SqliteDatabase, writes: GroupCommit): FunctionStore {
  const insert = db.prepare('INSERT INTO functions (id, owner_name, name, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const byName = db.prepare<[string, string], DataRow>('SELECT data FROM functions WHERE owner_name = ? AND name = ?');
  const byId = db.prepare<[string], DataRow>('SELECT data FROM functions WHERE id = ?');
  const update = db.prepare('UPDATE functions SET data = ? WHERE id = ?');
  const byOwner = db.prepare<[string, number, number], DataRow>('SELECT data FROM functions WHERE owner_name = ? ORDER BY name LIMIT ? OFFSET ?');
  // Every push reads its function: remembered until the next write of the table.
  const cache = new RecordCache<FunctionRecord>();
  return {
    async create(fn) {
      return cache.writing(() => writes.write(() => insert.run(fn.id, fn.ownerName, fn.name, JSON.stringify(fn)).changes === 1));
    },
    async get(ownerName, name) {
      return cache.read(`name:${ownerName}/${name}`, () => parse(byName.get(ownerName, name)));
    },
    async getById(id) {
      return cache.read(`id:${id}`, () => parse(byId.get(id)));
    },
    async put(fn) {
      await cache.writing(() => writes.write(() => update.run(JSON.stringify(fn), fn.id)));
    },
    async listByOwner(ownerName, page) {
      return byOwner.all(ownerName, page.limit, page.offset).map((row) => JSON.parse(row.data) as FunctionRecord);
    },
  };
}
