import { describe, expect, it } from 'vitest';
import { ACTIVE_JOB_MAX_INPUT_BYTES, ACTIVE_JOB_RECORD_BYTES, ActiveJobs } from '../../shared/adapters/local/sqlite/activeJobs.js';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { GroupCommit } from '../../shared/adapters/local/sqlite/groupCommit.js';
import { sqliteJobStore } from '../../shared/adapters/local/sqlite/jobStore.js';
import { aJob } from '../support/fixtures.js';

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
    const text = 'x'.repeat(ACTIVE_JOB_MAX_INPUT_BYTES + 1);
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
    expect(await jobs.transition(second.id, ['queued', 'processing'], { status: 'cancelled', completedAt: 7 })).toMatchObject({ status: 'cancelled', startedAt: 5 });
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
    expect(await jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 9 }, { deferDurability: true })).toMatchObject({ status: 'finished' });
    expect(db.inTransaction).toBe(true);
    await writes.durable();
    expect(db.prepare('SELECT status FROM jobs WHERE id = ?').pluck().get(job.id)).toBe('finished');
  });
});

describe('ActiveJobs', () => {
  it('keeps queued and processing jobs only, within its byte budget (each record and its inputs)', () => {
    const active = new ActiveJobs(2 * ACTIVE_JOB_RECORD_BYTES + 100);
    const first = aJob();
    active.remember(first, 60);
    const second = aJob();
    active.remember(second, 60);
    expect(active.get(first.id)).toBe(first);
    expect(active.get(second.id)).toBeUndefined();

    active.moved({ ...first, status: 'finished' });
    expect(active.get(first.id)).toBeUndefined();
    active.remember(second, 60);
    expect(active.get(second.id)).toBe(second);
  });
});
