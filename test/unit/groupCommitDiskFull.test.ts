import { describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';

/** A database with no room left: SQLite answers SQLITE_FULL to a write that needs another page, as on a full disk. */
function fullDatabase(): SqliteDatabase {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  return db;
}

const notes = (db: SqliteDatabase) => db.prepare('SELECT text FROM notes').pluck().all();
/** What a write's promise came to within a few turns: a hung one reads 'still waiting'. */
const settled = (write: Promise<unknown>) =>
  Promise.race([
    write.then(
      () => 'committed',
      (error: { code?: string }) => error.code,
    ),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), 100)),
  ]);

describe('group commit on a full disk', () => {
  it('fails every write of the turn when SQLite rolls the whole transaction back for lack of room, leaving none waiting', async () => {
    const db = fullDatabase();
    const writes = new GroupCommit(db, 0);
    let rollbacks = 0;
    writes.onRollback(() => rollbacks++);
    const small = writes.write(() => db.prepare('INSERT INTO notes VALUES (?)').run('small'));
    const large = writes.write(() => db.prepare('INSERT INTO notes VALUES (?)').run('x'.repeat(100_000)));
    expect(await settled(large)).toBe('SQLITE_FULL');
    expect(await settled(small)).toBe('SQLITE_FULL');
    expect(rollbacks).toBeGreaterThan(0);
    expect(notes(db)).toEqual([]);
  });

  it('tells a write made before the failure, whose caller waits for durability later in the turn, that it was not stored', async () => {
    const db = fullDatabase();
    const writes = new GroupCommit(db, 0);
    writes.writeDeferred(() => db.prepare('INSERT INTO notes VALUES (?)').run('pushed'));
    await expect(writes.write(() => db.prepare('INSERT INTO notes VALUES (?)').run('x'.repeat(100_000)))).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(await settled(writes.durable())).toBe('SQLITE_FULL');
    expect(notes(db)).toEqual([]);
  });

  it('commits the next turn’s writes once there is room again', async () => {
    const db = fullDatabase();
    const writes = new GroupCommit(db, 0);
    await expect(writes.write(() => db.prepare('INSERT INTO notes VALUES (?)').run('x'.repeat(100_000)))).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    await new Promise((resolve) => setImmediate(resolve));
    db.pragma('max_page_count = 1000000');
    expect(await settled(writes.write(() => db.prepare('INSERT INTO notes VALUES (?)').run('later')))).toBe('committed');
    expect(notes(db)).toEqual(['later']);
  });
});
