/**
 * Locally a read goes through the connection whose commit is still gathering: a GET could show a
 * job's end that a crash in the next milliseconds undoes, and the job then runs again. Reads of
 * jobs are answered once what they saw is committed, as waiters are told only then.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { Store } from '../../shared/ports/store.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import { JobReads } from '../../shared/services/jobReads.js';
import { JobViews } from '../../shared/services/jobViews.js';
import { VersionService } from '../../shared/services/versionService.js';
import { aJob, anOutput } from '../support/fixtures.js';

const principal = { organizationId: 'org-1', organizationName: 'acme' };

let dir: string;
let store: Store;
let reads: JobReads;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-reads-'));
  store = createSqliteStore(join(dir, 'sluice.db'));
  const access = new FunctionAccess(store);
  const artifacts = {} as never; // no File output is read here
  reads = new JobReads({ store, access, versions: new VersionService(store, access), views: new JobViews({ store, artifacts }), artifacts });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The job's status as a restart would find it: read from another connection. */
const committedStatus = (id: string) => {
  const reader = new Database(join(dir, 'sluice.db'), { readonly: true });
  try {
    return JSON.parse(reader.prepare('SELECT data FROM jobs WHERE id = ?').pluck().get(id) as string).status;
  } finally {
    reader.close();
  }
};

/** The job's outputs as a restart would find them. */
const committedOutputCount = (id: string) => {
  const reader = new Database(join(dir, 'sluice.db'), { readonly: true });
  try {
    return reader.prepare('SELECT count(*) FROM job_outputs WHERE job_id = ?').pluck().get(id) as number;
  } finally {
    reader.close();
  }
};

describe('a read of a job whose move is not committed yet', () => {
  it('is answered once the move is committed, one and in a list alike', async () => {
    const job = aJob({ id: 'job-1', status: 'processing', startedAt: 1, organizationId: 'org-1' });
    await store.jobs.create(job);
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 2 }, { deferDurability: true });

    const one = await reads.get(principal, job.id);
    expect(one.job.status).toBe('finished');
    expect(committedStatus(job.id)).toBe('finished');

    const listedJob = aJob({ id: 'job-2', status: 'processing', startedAt: 1, organizationId: 'org-1', createdAt: job.createdAt + 1 });
    await store.jobs.create(listedJob);
    await store.jobs.transition(listedJob.id, ['processing'], { status: 'error', error: 'boom', completedAt: 2 }, { deferDurability: true });
    const [listed] = (await reads.list(principal, undefined, { limit: 1, offset: 0 })).views;
    expect(listed?.job).toMatchObject({ id: 'job-2', status: 'error' });
    expect(committedStatus(listedJob.id)).toBe('error');
  });

  it("shows a listed job's outputs only once they are committed", async () => {
    const job = aJob({ id: 'job-1', status: 'processing', startedAt: 1, organizationId: 'org-1' });
    await store.jobs.create(job);
    // An output written just after the list's wait for durability, as a replica's can be: were
    // the page's previews read after that wait, the page would show an output a crash undoes.
    let written = false;
    const racing: Store = {
      ...store,
      durable: async () => {
        await store.durable();
        if (written) return;
        written = true;
        await store.jobs.appendOutput(anOutput({ jobId: job.id }), { deferDurability: true });
      },
    };
    const access = new FunctionAccess(racing);
    const artifacts = {} as never;
    const racingReads = new JobReads({
      store: racing,
      access,
      versions: new VersionService(racing, access),
      views: new JobViews({ store: racing, artifacts }),
      artifacts,
    });

    const [listed] = (await racingReads.list(principal, undefined, { limit: 1, offset: 0 })).views;
    expect(written).toBe(true);
    expect(listed?.outputs.length ?? 0).toBeLessThanOrEqual(committedOutputCount(job.id));
  });
});
