import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';
import { sqliteUsageStore } from '../../shared/adapters/local/sqlite/usageStore.js';
import { anIncrement } from '../support/fixtures.js';

/** A usage store beside a table whose deferred foreign key lets a test make a whole commit fail. */
function setUp() {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE parents (id TEXT PRIMARY KEY); CREATE TABLE children (parent TEXT REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)');
  const writes = new GroupCommit(db);
  const failThisCommit = () => writes.writeDeferred(() => db.prepare("INSERT INTO children VALUES ('nobody')").run());
  return { db, usage: sqliteUsageStore(db, writes), failThisCommit };
}

const hour = anIncrement().hour;
const query = { organizationId: 'org-1', fromHour: hour, toHour: hour + 3600 };

describe('SQLite usage: the jobs of one commit add to their hour row once', () => {
  it('writes the sum of a commit’s jobs to their hour row and their day row', async () => {
    const { db, usage } = setUp();
    await Promise.all(Array.from({ length: 20 }, (_, n) => usage.recordJob(`job-${n}`, anIncrement({ computeSeconds: 1.5, costDollars: 0.25 }))));
    expect(db.prepare('SELECT compute_seconds, cost_dollars FROM usage_hours').all()).toEqual([{ compute_seconds: 30, cost_dollars: 5 }]);
    expect(db.prepare('SELECT compute_seconds, cost_dollars FROM usage_days').all()).toEqual([{ compute_seconds: 30, cost_dollars: 5 }]);
  });

  it('counts in totals asked before the commit an increment waits for', async () => {
    const { usage } = setUp();
    const recorded = usage.recordJob('job-1', anIncrement({ computeSeconds: 7, costDollars: 1 }));
    expect((await usage.totals(query)).get('a100')).toEqual({ computeSeconds: 7, costDollars: 1 });
    expect(await recorded).toBe(true);
    expect((await usage.totals(query)).get('a100')).toEqual({ computeSeconds: 7, costDollars: 1 });
  });

  it('counts nothing of a commit that failed, and counts the job when it is recorded again', async () => {
    const { usage, failThisCommit } = setUp();
    const recorded = usage.recordJob('job-1', anIncrement({ computeSeconds: 7, costDollars: 1 }));
    failThisCommit();
    await expect(recorded).rejects.toThrow(/FOREIGN KEY/);
    expect((await usage.totals(query)).size).toBe(0);
    expect(await usage.recordJob('job-1', anIncrement({ computeSeconds: 7, costDollars: 1 }))).toBe(true);
    expect((await usage.totals(query)).get('a100')).toEqual({ computeSeconds: 7, costDollars: 1 });
  });
});
