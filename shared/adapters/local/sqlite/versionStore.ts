import { BUILD_STATUSES } from '../../../domain/buildStatus.js';
import type { VersionRecord } from '../../../domain/version.js';
import type { VersionStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';
import { RecordCache } from './recordCache.js';

interface DataRow {
  data: string;
}

const parse = (row: DataRow): VersionRecord => JSON.parse(row.data) as VersionRecord;

/** LIKE treats % and _ as wildcards; a prefix is matched literally. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export function sqliteVersionStore(db: SqliteDatabase, writes: GroupCommit): VersionStore {
  const insert = db.prepare('INSERT INTO versions (id, function_id, created_at, build_status, data) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], DataRow>('SELECT data FROM versions WHERE id = ?');
  const byPrefix = db.prepare<[string, string, number], DataRow>(
    "SELECT data FROM versions WHERE function_id = ? AND id LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id DESC LIMIT ?",
  );
  const byFunction = db.prepare<[string, number, number], DataRow>(
    'SELECT data FROM versions WHERE function_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
  );
  const latestReady = db.prepare<[string], DataRow>(
    "SELECT data FROM versions WHERE function_id = ? AND build_status = 'ready' ORDER BY created_at DESC, id DESC LIMIT 1",
  );
  const update = db.prepare('UPDATE versions SET build_status = ?, data = ? WHERE id = ?');
  const transition = db.transaction((id: string, from: readonly string[], patch: Partial<VersionRecord>) => {
    const row = byId.get(id);
    if (!row) return null;
    const current = parse(row);
    if (!from.includes(current.buildStatus)) return null;
    const next = { ...current, ...patch };
    update.run(next.buildStatus, JSON.stringify(next), id);
    return next;
  });
  // Every push reads its version (by id, or its function's latest ready one): remembered until the next write of the table.
  const cache = new RecordCache<VersionRecord>();
  return {
    async create(version) {
      await cache.writing(() =>
        writes.write(() => insert.run(version.id, version.functionId, version.createdAt, version.buildStatus, JSON.stringify(version))),
      );
    },
    async get(id) {
      return cache.read(`id:${id}`, () => {
        const row = byId.get(id);
        return row ? parse(row) : null;
      });
    },
    async findByPrefix(functionId, prefix, limit) {
      return byPrefix.all(functionId, `${escapeLike(prefix)}%`, limit).map(parse);
    },
    async listByFunction(functionId, page) {
      return byFunction.all(functionId, page.limit, page.offset).map(parse);
    },
    async latestReady(functionId) {
      return cache.read(`ready:${functionId}`, () => {
        const row = latestReady.get(functionId);
        return row ? parse(row) : null;
      });
    },
    async transition(id, from, patch) {
      return cache.writing(() => writes.write(() => transition(id, from, patch)));
    },
    async setReplicaBounds(id, bounds) {
      return cache.writing(() =>
        writes.write(() =>
          transition(id, BUILD_STATUSES, {
            minimumReplicas: bounds.minimumReplicas,
            maximumReplicas: bounds.maximumReplicas,
            ...(bounds.scaledownWindowSeconds === undefined ? {} : { scaledownWindowSeconds: bounds.scaledownWindowSeconds }),
            ...(bounds.bufferReplicas === undefined ? {} : { bufferReplicas: bounds.bufferReplicas }),
          }),
        ),
      );
    },
    async listByBuildStatus(statuses, createdBefore = Number.MAX_SAFE_INTEGER) {
      const placeholders = statuses.map(() => '?').join(', ');
      const statement = db.prepare<unknown[], DataRow>(
        `SELECT data FROM versions WHERE build_status IN (${placeholders}) AND created_at < ? ORDER BY created_at, id`,
      );
      return statement.all(...statuses, createdBefore).map(parse);
    },
  };
}
