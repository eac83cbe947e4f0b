import { afterEach, describe, expect, it } from 'vitest';
import { PAGE_END_KEPT_MS, PageBoundaries } from '../../shared/adapters/local/sqlite/pageBoundaries.js';
import { createSqliteStore, type SqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobRecord } from '../../shared/domain/job.js';
import { aJob } from '../support/fixtures.js';

const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);
const org = { organizationId: 'org-1' };

describe('SQLite job lists paged by offset', () => {
  let store: SqliteStore;
  afterEach(() => store.close());

  /** What a client does: read limit + 1 rows (to know whether more follow), go on at offset + limit. */
  async function walk(limit: number, between: (page: number) => Promise<void> = async () => {}): Promise<string[]> {
    const seen: string[] = [];
    for (let offset = 0, page = 0; ; offset += limit, page++) {
      const rows = await store.jobs.listByOrganization(org, { limit: limit + 1, offset });
      seen.push(...ids(rows.slice(0, limit)));
      if (rows.length <= limit) return seen;
      await between(page);
    }
  }

  it('walks every job once, newest first, while newer jobs are pushed between pages', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `old-${i}`, createdAt: 100 + i }));
    const walked = await walk(3, (page) => store.jobs.create(aJob({ id: `new-${page}`, createdAt: 1000 + page })));
    expect(walked).toEqual(Array.from({ length: 10 }, (_, i) => `old-${9 - i}`));
  });

  it('walks a status filter once each, while jobs leave the status between pages', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 9; i++) await store.jobs.create(aJob({ id: `q-${i}`, createdAt: 100 + i }));
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const rows = await store.jobs.listByFunction('function-1', { ...org, status: 'queued' }, { limit: 3, offset });
      seen.push(...ids(rows.slice(0, 2)));
      if (rows.length <= 2) break;
      // A job of the page read starts: an offset counted again would skip one job.
      await store.jobs.transition((rows[0] as JobRecord).id, ['queued'], { status: 'processing' });
    }
    expect(seen).toEqual(Array.from({ length: 9 }, (_, i) => `q-${8 - i}`));
  });

  it('answers an offset no page ended at by counting rows, as OFFSET does', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `job-${i}`, createdAt: 100 + i }));
    expect(ids(await store.jobs.listByOrganization(org, { limit: 2, offset: 5 }))).toEqual(['job-4', 'job-3']);
    expect(ids(await store.jobs.listByOrganization({ organizationId: 'org-2' }, { limit: 2, offset: 2 }))).toEqual([]);
  });
});

describe('page ends remembered for offset walks', () => {
  it('resumes at an offset a page ended at within the last minute, and counts it after that', () => {
    let now = 0;
    const boundaries = new PageBoundaries(() => now);
    boundaries.remember('list', 0, [
      { createdAt: 3, id: 'c' },
      { createdAt: 2, id: 'b' },
      { createdAt: 1, id: 'a' },
    ]);
    // The routes read limit + 1 rows: the next page starts after the second row, or the third.
    expect(boundaries.find('list', 2)).toEqual({ createdAt: 2, id: 'b' });
    expect(boundaries.find('list', 3)).toEqual({ createdAt: 1, id: 'a' });
    expect(boundaries.find('list', 1)).toBeUndefined();
    expect(boundaries.find('other list', 2)).toBeUndefined();
    now = PAGE_END_KEPT_MS + 1;
    expect(boundaries.find('list', 2)).toBeUndefined();
  });
});
