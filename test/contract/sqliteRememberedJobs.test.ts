import { describe, expect, it } from 'vitest';
import { REMEMBERED_JOB_MAX_INPUT_BYTES, REMEMBERED_JOB_RECORD_BYTES, RememberedJobs } from '../../shared/adapters/local/sqlite/rememberedJobs.js';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';
import { sqliteJobStore } from '../../shared/adapters/local/sqlite/jobStore.js';
import { aJob, anOutput } from '../support/fixtures.js';

/** A job store beside a table whose deferred foreign key lets a test make a whole commit fail. */
function setUp() {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE parents (id TEXT PRIMARY KEY); CREATE TABLE children (parent TEXT REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)');
  const writes = new GroupCommit(db);
  const failThisCommit = () => writes.writeDeferred(() => db.prepare("INSERT INTO children VALUES ('nobody')").run());
  return { db, jobs: sqliteJobStore(db, writes), writes, failThisCommit };
}

describe('SQLite jobs: the records of running jobs are remembered, never trusted over the rows', () => {
  it('a move whose commit failed is forgotten: the job moves on from the status its row kept', async () => {
    const { jobs, writes, failThisCommit } = setUp();
    const job = aJob();
    await jobs.create(job);
    expect((await jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 5 }, { deferDurability: true }))?.status).toBe('processing');
    failThisCommit();
    await expect(writes.durable()).rejects.toThrow(/FOREIGN KEY/);

    expect((await jobs.get(job.id))?.status).toBe('queued');
    expect(await jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 })).toBeNull();
    expect(await jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10 })).toMatchObject({ status: 'processing', startedAt: 10 });
  });

  it('a job created in a commit that failed does not exist', async () => {
    const { jobs, failThisCommit } = setUp();
    const job = aJob();
    const created = jobs.create(job);
    failThisCommit();
    await expect(created).rejects.toThrow(/FOREIGN KEY/);
    expect(await jobs.get(job.id)).toBeNull();
    expect(await jobs.transition(job.id, ['queued'], { status: 'processing' })).toBeNull();
  });

  it('the record a read returns cannot be changed by its caller for the next one', async () => {
    const { jobs } = setUp();
    const job = aJob();
    await jobs.create(job);
    const read = await jobs.get(job.id);
    expect(() => Object.assign(read as object, { status: 'finished' })).toThrow(TypeError);
    expect((await jobs.get(job.id))?.status).toBe('queued');
  });

  it('a job with inputs too large to remember moves and reads the same as any other', async () => {
    const { jobs } = setUp();
    const text = 'x'.repeat(REMEMBERED_JOB_MAX_INPUT_BYTES + 1);
    const job = aJob({ inputs: { text } });
    await jobs.create(job);
    await jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 5 });
    const finished = await jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 });
    expect(finished).toMatchObject({ status: 'finished', startedAt: 5, completedAt: 9, inputs: { text } });
    expect(await jobs.get(job.id)).toEqual(finished);
  });
});

describe('SQLite jobs: a start waits in memory for its commit', () => {
  const start = { status: 'processing', startedAt: 5, countAttempt: true } as const;

  it('a job that starts and ends before the commit has its row written once, from queued to its end', async () => {
    const { db, jobs, writes } = setUp();
    const changes = db.prepare<[], number>('SELECT total_changes()').pluck();
    const job = aJob();
    await jobs.create(job);
    const before = changes.get() as number;
    await jobs.transition(job.id, ['queued'], start, { deferDurability: true });
    const finished = jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 });
    await writes.durable();
    expect(changes.get()).toBe(before + 1);
    expect(await finished).toMatchObject({ status: 'finished', startedAt: 5, completedAt: 9, attempts: 1 });
    expect(db.prepare('SELECT status FROM jobs WHERE id = ?').pluck().get(job.id)).toBe('finished');
  });

  it('lists, counts and row reads in the same turn see a start not written yet', async () => {
    const { jobs } = setUp();
    const job = aJob();
    await jobs.create(job);
    await jobs.transition(job.id, ['queued'], start, { deferDurability: true });
    const organizationId = job.organizationId;
    expect(await jobs.countActive(organizationId)).toEqual({ queued: 0, processing: 1 });
    expect((await jobs.listByFunction(job.functionId, { organizationId, status: 'processing' }, { offset: 0, limit: 10 })).map((j) => j.id)).toEqual([job.id]);
    expect(await jobs.listQueuedByVersion(job.versionId)).toEqual([]);
    expect((await jobs.listByStatus(['processing']))[0]).toMatchObject({ id: job.id, startedAt: 5 });
  });

  it('a start is on disk once its commit is, and a cancel before then moves the job from the status its row has', async () => {
    const { db, jobs, writes } = setUp();
    const [first, second] = [aJob(), aJob()];
    await jobs.create(first);
    await jobs.create(second);
    await jobs.transition(first.id, ['queued'], start, { deferDurability: true });
    await jobs.transition(second.id, ['queued'], start, { deferDurability: true });
    expect(await jobs.transition(second.id, ['queued', 'processing'], { status: 'cancelled', completedAt: 7 })).toMatchObject({
      status: 'cancelled',
      startedAt: 5,
    });
    await writes.durable();
    const status = db.prepare<[string], string>('SELECT status FROM jobs WHERE id = ?').pluck();
    expect([status.get(first.id), status.get(second.id)]).toEqual(['processing', 'cancelled']);
    expect(await jobs.transition(first.id, ['processing'], { status: 'finished', completedAt: 9 })).toMatchObject({ status: 'finished', startedAt: 5 });
  });
});

describe('SQLite jobs: a pushed job runs while its commit gathers', () => {
  it('a job created with deferred durability starts and ends at once, and its push, its start and its end share one commit', async () => {
    const { db, jobs, writes } = setUp();
    const job = aJob();
    await jobs.create(job, { deferDurability: true });
    await jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 5 }, { deferDurability: true });
    expect(await jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 }, { deferDurability: true })).toMatchObject({
      status: 'finished',
    });
    expect(db.inTransaction).toBe(true);
    await writes.durable();
    expect(db.prepare('SELECT status FROM jobs WHERE id = ?').pluck().get(job.id)).toBe('finished');
  });
});

describe('SQLite jobs: a job that ended is remembered as its end wrote it', () => {
  const end = async (jobs: ReturnType<typeof setUp>['jobs'], id: string) => {
    await jobs.transition(id, ['queued'], { status: 'processing', startedAt: 5 }, { deferDurability: true });
    return jobs.transition(id, ['processing'], { status: 'finished', completedAt: 9 }, { deferDurability: true });
  };

  it('a read right after a job ends answers its end, and reads no row for it', async () => {
    const { db, jobs, writes } = setUp();
    const job = aJob();
    await jobs.create(job);
    const finished = await end(jobs, job.id);
    await writes.durable();
    // Changed behind the store's back, which no other process does: the read shows what it remembers.
    db.prepare("UPDATE jobs SET data = json_set(data, '$.error', 'from the row') WHERE id = ?").run(job.id);
    expect(await jobs.get(job.id)).toEqual(finished);
    expect((await jobs.get(job.id))?.error).toBe('');
  });

  it('an end whose commit failed is forgotten: a read answers the row as it was', async () => {
    const { jobs, writes, failThisCommit } = setUp();
    const job = aJob();
    await jobs.create(job);
    await end(jobs, job.id);
    failThisCommit();
    await expect(writes.durable()).rejects.toThrow(/FOREIGN KEY/);
    expect((await jobs.get(job.id))?.status).toBe('queued');
  });

  it('the outputs and child jobs written for a remembered job are listed: it is known to have none only until then', async () => {
    const { jobs } = setUp();
    const [parent, other] = [aJob(), aJob()];
    await jobs.create(parent);
    await jobs.create(other);
    await jobs.create(aJob({ parentJobId: other.id }));
    expect(await jobs.listOutputs(parent.id, 0)).toEqual([]);
    expect(await jobs.listChildSummaries(parent.id)).toEqual([]);
    await jobs.appendOutput(anOutput({ jobId: parent.id, index: 0 }));
    expect((await jobs.listOutputs(parent.id, 0)).map((output) => output.index)).toEqual([0]);
    const child = aJob({ parentJobId: parent.id });
    await jobs.create(child);
    await end(jobs, parent.id);
    expect((await jobs.listOutputs(parent.id, 0)).map((output) => output.index)).toEqual([0]);
    expect((await jobs.listOutputPreviews(parent.id, { max: 10, budget: 1e6 })).length).toBe(1);
    expect((await jobs.listChildSummaries(parent.id)).map((summary) => summary.id)).toEqual([child.id]);
    expect((await jobs.listChildren(parent.id)).map((listed) => listed.id)).toEqual([child.id]);
    expect(await jobs.listOutputs(other.id, 0)).toEqual([]);
    expect((await jobs.listChildSummaries(other.id)).length).toBe(1);
  });
});

describe('RememberedJobs', () => {
  it('keeps queued and processing jobs within their byte budget (each record and its inputs)', () => {
    const remembered = new RememberedJobs(2 * REMEMBERED_JOB_RECORD_BYTES + 100);
    const first = aJob();
    remembered.remember(first, 60);
    const second = aJob();
    remembered.remember(second, 60);
    expect(remembered.active(first.id)).toBe(first);
    expect(remembered.active(second.id)).toBeUndefined();

    remembered.moved({ ...first, status: 'finished' });
    expect(remembered.active(first.id)).toBeUndefined();
    expect(remembered.get(first.id)?.status).toBe('finished');
    remembered.remember(second, 60);
    expect(remembered.active(second.id)).toBe(second);
  });

  it('keeps the last jobs that ended within their own budget, forgetting the oldest first', () => {
    const remembered = new RememberedJobs(undefined, 2 * REMEMBERED_JOB_RECORD_BYTES);
    const [first, second, third] = [aJob({ status: 'finished' }), aJob({ status: 'error' }), aJob({ status: 'cancelled' })];
    for (const job of [first, second, third]) remembered.remember(job, 0);
    expect([first, second, third].map((job) => remembered.get(job.id))).toEqual([undefined, second, third]);
    expect(remembered.active(second.id)).toBeUndefined();
    remembered.forget(third.id);
    expect(remembered.get(third.id)).toBeUndefined();
  });
});
