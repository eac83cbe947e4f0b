import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, SCHEMA_BEFORE_LIST_PREVIEWS, SCHEMA_BEFORE_USAGE_DAYS } from '../../shared/adapters/local/sqlite/database.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { jsonBytes, LIST_INLINE_BYTES } from '../../shared/domain/listPreview.js';
import { HOUR_SECONDS } from '../../shared/domain/usage.js';
import { aJob, anIncrement, anOutput } from '../support/fixtures.js';

describe('SQLite migration of jobs and outputs stored by an earlier release', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A database as the release before list previews left it, holding these rows. */
  function anOlderDatabase(jobs: ReturnType<typeof aJob>[], outputs: ReturnType<typeof anOutput>[]): string {
    dir = mkdtempSync(join(tmpdir(), 'sluice-migration-'));
    const path = join(dir, 'sluice.db');
    const db = openDatabase(path, SCHEMA_BEFORE_LIST_PREVIEWS);
    const insertJob = db.prepare(
      'INSERT INTO jobs (id, function_id, version_id, organization_id, parent_job_id, status, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const job of jobs)
      insertJob.run(job.id, job.functionId, job.versionId, job.organizationId, job.parentJobId, job.status, job.createdAt, JSON.stringify(job));
    const insertOutput = db.prepare('INSERT INTO job_outputs (job_id, idx, data) VALUES (?, ?, ?)');
    for (const output of outputs) insertOutput.run(output.jobId, output.index, JSON.stringify(output));
    db.close();
    return path;
  }

  it('keeps every job and output whole for get, and lists them as newly stored ones are listed', async () => {
    const small = aJob({ createdAt: 2, inputs: { text: 'héllo', n: 2 ** 60, list: [1, { a: null }] } });
    const large = aJob({ createdAt: 1, inputs: { image: 'x'.repeat(LIST_INLINE_BYTES), note: 'small' } });
    const outputs = [
      anOutput({ jobId: small.id, index: 0, data: { ok: true } }),
      anOutput({ jobId: small.id, index: 1, name: 'big', data: 'y'.repeat(LIST_INLINE_BYTES) }),
    ];
    const store = createSqliteStore(anOlderDatabase([small, large], outputs));
    try {
      expect(await store.jobs.get(small.id)).toEqual(small);
      expect(await store.jobs.get(large.id)).toEqual(large);
      expect(await store.jobs.listOutputs(small.id, 0)).toEqual(outputs);
      // A migrated job whose inputs pass the inline size lists them all as null.
      const listed = await store.jobs.listByOrganization({ organizationId: 'org-1' }, { limit: 10, offset: 0 });
      expect(listed).toEqual([small, { ...large, inputs: { image: null, note: null } }]);
      expect(await store.jobs.listOutputPreviews(small.id, { budget: 1_000_000, max: 10 })).toEqual([
        { ...outputs[0], omitted: false, bytes: jsonBytes({ ok: true }) },
        { ...outputs[1], data: null, omitted: true, bytes: LIST_INLINE_BYTES + 2 },
      ]);
      const finished = await store.jobs.transition(large.id, ['queued'], { status: 'finished', completedAt: 5 });
      expect(finished).toEqual({ ...large, status: 'finished', completedAt: 5 });
    } finally {
      await store.close();
    }
  });

  it('keeps the usage an earlier release counted by hour, in totals over whole days and their edges', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-migration-'));
    const path = join(dir, 'sluice.db');
    const db = openDatabase(path, SCHEMA_BEFORE_USAGE_DAYS);
    const DAY = 24 * HOUR_SECONDS;
    const firstDay = anIncrement().hour - (anIncrement().hour % DAY);
    const insert = db.prepare(
      'INSERT INTO usage_hours (organization_id, version_id, billing_class, hour, function_id, compute_seconds, cost_dollars) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (let hour = firstDay; hour < firstDay + 3 * DAY; hour += HOUR_SECONDS) insert.run('org-1', 'version-1', 'cpu', hour, 'function-1', 2, 0.5);
    db.close();
    const store = createSqliteStore(path);
    try {
      const totals = await store.usage.totals({ organizationId: 'org-1', fromHour: firstDay + HOUR_SECONDS, toHour: firstDay + 3 * DAY });
      expect(totals.get('cpu')).toEqual({ computeSeconds: (3 * 24 - 1) * 2, costDollars: (3 * 24 - 1) * 0.5 });
      const byFunction = await store.usage.totalsByFunction({ organizationId: 'org-1', fromHour: firstDay, toHour: firstDay + 2 * DAY });
      expect(byFunction.get('function-1')?.get('cpu')).toEqual({ computeSeconds: 96, costDollars: 24 });
    } finally {
      await store.close();
    }
  });
});
