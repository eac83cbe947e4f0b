import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { CROWD_WRITES, GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';

const nextTurns = (n: number) =>
  new Promise<void>((resolve) => {
    const step = (left: number) => (left === 0 ? resolve() : setImmediate(() => step(left - 1)));
    step(n);
  });

/** A group commit with a window long enough that a test can see a write wait for it. */
function setUp() {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE t (n INTEGER)');
  const insert = db.prepare<[number]>('INSERT INTO t (n) VALUES (?)');
  const writes = new GroupCommit(db, 60_000);
  return { db, writes, write: (n: number) => writes.write(() => insert.run(n)) };
}

describe('group commit', () => {
  it('commits a lone write at the end of its turn: a quiet service never waits for the window', async () => {
    const { writes, write } = setUp();
    await write(1);
    let done = false;
    void write(2).then(() => (done = true));
    await nextTurns(3);
    expect(done).toBe(true);
    writes.flush();
  });

  it('after a commit that carried a crowd of writes, the next commit waits out the window, gathering what comes meanwhile', async () => {
    const { db, writes, write } = setUp();
    await Promise.all(Array.from({ length: CROWD_WRITES }, (_, n) => write(n)));
    let done = 0;
    const later = [write(100), write(101)].map((written) => written.then(() => (done += 1)));
    await nextTurns(5);
    expect(done).toBe(0);
    expect(db.inTransaction).toBe(true);
    writes.flush();
    await Promise.all(later);
    expect(done).toBe(2);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(CROWD_WRITES + 2);
  });

  it('a deferred write returns its value at once, and durable() resolves with the commit that holds it', async () => {
    const { db, writes } = setUp();
    const value = writes.writeDeferred(() => db.prepare('INSERT INTO t (n) VALUES (7)').run().changes);
    expect(value).toBe(1);
    expect(db.inTransaction).toBe(true);
    await writes.durable();
    expect(db.inTransaction).toBe(false);
  });

  it('a failed statement is refused alone; the writes beside it still commit', async () => {
    const { db, writes, write } = setUp();
    const failed = writes.write(() => db.prepare('INSERT INTO nowhere VALUES (1)').run());
    await expect(failed).rejects.toThrow(/no such table/);
    await write(5);
    expect(db.prepare('SELECT n FROM t').pluck().all()).toEqual([5]);
  });
});
