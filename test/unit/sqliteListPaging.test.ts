import { afterEach, describe, expect, it } from 'vitest';
import { memoryPageEnds } from '../../shared/adapters/local/memoryPageEnds.js';
import { createSqliteStore, type SqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobRecord } from '../../shared/domain/job.js';
import { PAGE_END_KEPT_S } from '../../shared/domain/listOffsets.js';
import { aJob } from '../support/fixtures.js';

const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);
const org = { organizationId: 'org-1' };

describe('SQLite job lists paged by offset or after a job', () => {
  let store: SqliteStore;
  afterEach(() => store.close());

  it('answers a page after a given job (a keyset seek), whatever was pushed since', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `job-${i}`, createdAt: 100 + i }));
    await store.jobs.create(aJob({ id: 'newer', createdAt: 1000 }));
    expect(ids(await store.jobs.listByOrganization(org, { limit: 3, offset: 0, after: { createdAt: 107, id: 'job-7' } }))).toEqual(['job-6', 'job-5', 'job-4']);
    const inStatus = await store.jobs.listByFunction(
      'function-1',
      { ...org, status: 'queued' },
      { limit: 2, offset: 0, after: { createdAt: 102, id: 'job-2' } },
    );
    expect(ids(inStatus)).toEqual(['job-1', 'job-0']);
  });

  it('answers an offset by counting rows, as OFFSET does', async () => {
    store = createSqliteStore(':memory:');
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `job-${i}`, createdAt: 100 + i }));
    expect(ids(await store.jobs.listByOrganization(org, { limit: 2, offset: 5 }))).toEqual(['job-4', 'job-3']);
    expect(ids(await store.jobs.listByOrganization({ organizationId: 'org-2' }, { limit: 2, offset: 2 }))).toEqual([]);
  });
});

describe('page ends kept in memory (the local service)', () => {
  it('finds where a page ended as long as asked (at most the hour), and the nearest offset a list handed out below another', async () => {
    let now = 0;
    const ends = memoryPageEnds(() => now);
    await ends.remember('org-1:list', 10, { createdAt: 2, id: 'b' });
    await ends.remember('org-1:list', 20, { createdAt: 1, id: 'a' });
    await ends.remember('org-1:other list', 30, { createdAt: 0, id: 'z' });
    expect(await ends.find('org-1:list', 10, 60)).toEqual({ createdAt: 2, id: 'b' });
    expect(await ends.find('org-1:list', 11, 60)).toBeUndefined();
    expect(await ends.find('org-1:other list', 10, 60)).toBeUndefined();
    expect(await ends.find('org-2:list', 10, 60)).toBeUndefined();
    expect(await ends.nearest('org-1:list', 100)).toBe(20);
    expect(await ends.nearest('org-1:list', 20)).toBe(10);
    expect(await ends.nearest('org-1:list', 10)).toBeUndefined();
    now = 61_000;
    expect(await ends.find('org-1:list', 10, 60)).toBeUndefined();
    expect(await ends.find('org-1:list', 10, PAGE_END_KEPT_S)).toEqual({ createdAt: 2, id: 'b' });
    now = PAGE_END_KEPT_S * 1000 + 1;
    expect(await ends.find('org-1:list', 10, 2 * PAGE_END_KEPT_S)).toBeUndefined();
    expect(await ends.nearest('org-1:list', 100)).toBeUndefined();
  });

  it("keeps an organization's page ends however many pages another organization is served", async () => {
    const ends = memoryPageEnds();
    await ends.remember('org-1:jobs:', 2020, { createdAt: 1, id: 'kept' });
    for (let offset = 0; offset < 70_000; offset++) await ends.remember('org-2:jobs:', offset, { createdAt: 1, id: 'x' });
    expect(await ends.find('org-1:jobs:', 2020, PAGE_END_KEPT_S)).toEqual({ createdAt: 1, id: 'kept' });
    expect(await ends.find('org-2:jobs:', 0, PAGE_END_KEPT_S)).toBeUndefined();
    expect(await ends.find('org-2:jobs:', 69_999, PAGE_END_KEPT_S)).toBeDefined();
  });
});
