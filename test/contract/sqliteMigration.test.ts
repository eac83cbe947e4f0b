import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_PREVIEWS_SCHEMA, openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { jsonBytes, LIST_INLINE_BYTES } from '../../shared/domain/listPreview.js';
import { aJob, anOutput } from '../support/fixtures.js';

describe('SQLite migration of jobs and outputs stored by an earlier release', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A database as the release before list previews left it, holding these rows. */
  function anOlderDatabase(jobs: ReturnType<typeof aJob>[], outputs: ReturnType<typeof anOutput>[]): string {
    dir = mkdtempSync(join(tmpdir(), 'sluice-migration-'));
    const path = join(dir, 'sluice.db');
    const db = openDatabase(path, LIST_PREVIEWS_SCHEMA - 1);
    const insertJob = db.prepare('INSERT INTO jobs (id, function_id, version_id, organization_id, parent_job_id, status, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const job of jobs) insertJob.run(job.id, job.functionId, job.versionId, job.organizationId, job.parentJobId, job.status, job.createdAt, JSON.stringify(job));
    const insertOutput = db.prepare('INSERT INTO job_outputs (job_id, idx, data) VALUES (?, ?, ?)');
    for (const output of outputs) insertOutput.run(output.jobId, output.index, JSON.stringify(output));
    db.close();
    return path;
  }

  it('keeps every job and output whole for get, and lists them as newly stored ones are listed', async () => {
    const small = aJob({ createdAt: 2, inputs: { text: 'héllo', n: 2 ** 60, list: [1, { a: null }] } });
    const large = aJob({ createdAt: 1, inputs: { image: 'x'.repeat(LIST_INLINE_BYTES), note: 'small' } });
    const outputs = [anOutput({ jobId: small.id, index: 0, data: { ok: true } }), anOutput({ jobId: small.id, index: 1, name: 'big', data: 'y'.repeat(LIST_INLINE_BYTES) })];
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
});
