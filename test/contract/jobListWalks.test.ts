import { afterEach, describe, expect, it } from 'vitest';
import { createTables } from '../../shared/adapters/aws/dynamodb/createTables.js';
import { createDocumentClient, createDynamoDbStore } from '../../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import type { JobStatus } from '../../shared/domain/job.js';
import { COUNTED_OFFSET_LIMIT } from '../../shared/domain/listOffsets.js';
import { jobPage } from '../../shared/http/views.js';
import type { Store } from '../../shared/ports/store.js';
import { FunctionAccess } from '../../shared/services/functionAccess.js';
import { JobReads } from '../../shared/services/jobReads.js';
import { JobViews } from '../../shared/services/jobViews.js';
import { VersionService } from '../../shared/services/versionService.js';
import { aJob } from '../support/fixtures.js';
import { startDynalite } from './dynaliteServer.js';

const principal = { organizationId: 'org-1', organizationName: 'acme' };

/** A store and what closes it. */
type Opened = { store: Store; close(): Promise<void> };
const STORES: [string, () => Promise<Opened>][] = [
  ['SQLite', async () => ({ store: createSqliteStore(':memory:'), close: async () => {} })],
  [
    'DynamoDB (dynalite)',
    async () => {
      const dynalite = await startDynalite();
      await createTables(dynalite.client, 'walk-');
      const store = createDynamoDbStore({ client: createDocumentClient(dynalite.client), tablePrefix: 'walk-' });
      return { store, close: () => dynalite.close() };
    },
  ],
];

describe.each(STORES)('job lists walked by next_offset (%s)', (_name, open) => {
  let opened: Opened | undefined;
  afterEach(async () => {
    await opened?.store.close();
    await opened?.close();
    opened = undefined;
  });
  async function reads(): Promise<{ store: Store; reads: JobReads }> {
    opened = await open();
    const { store } = opened;
    const access = new FunctionAccess(store);
    const artifacts = {} as never; // no File output is read here
    return { store, reads: new JobReads({ store, access, versions: new VersionService(store, access), views: new JobViews({ store, artifacts }), artifacts }) };
  }
  /** A route's answer: the page from one job more than `limit`, its next_offset handed out. */
  const page = async (reads: JobReads, offset: number, limit: number, status?: JobStatus) => {
    const answer = await jobPage(await reads.list(principal, status, { limit: limit + 1, offset }), { limit, offset });
    return { ids: answer.data.map((job) => job.id), next: answer.next_offset };
  };
  /** Every page from offset 0 by next_offset, `between` run after each. */
  const walk = async (reads: JobReads, limit: number, between: () => Promise<void>, status?: JobStatus) => {
    const seen: string[] = [];
    for (let offset = 0; offset !== -1;) {
      const { ids, next } = await page(reads, offset, limit, status);
      seen.push(...ids);
      offset = next;
      await between();
    }
    return seen;
  };

  it('shows every job once, newest first, while newer jobs are pushed between pages', async () => {
    const { store, reads: jobs } = await reads();
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `old-${i}`, createdAt: 100 + i }));
    let pushed = 0;
    const walked = await walk(jobs, 3, () => store.jobs.create(aJob({ id: `new-${pushed}`, createdAt: 1000 + pushed++ })));
    expect(walked).toEqual(Array.from({ length: 10 }, (_, i) => `old-${9 - i}`));
  });

  it('shows each job of a status once while jobs leave the status between pages', async () => {
    const { store, reads: jobs } = await reads();
    for (let i = 0; i < 9; i++) await store.jobs.create(aJob({ id: `q-${i}`, createdAt: 100 + i }));
    let started = 0;
    // The newest queued job starts after each page: an offset counted again would skip one job.
    const walked = await walk(jobs, 2, async () => void (await store.jobs.transition(`q-${8 - started++}`, ['queued'], { status: 'processing' })), 'queued');
    expect(walked).toEqual(Array.from({ length: 9 }, (_, i) => `q-${8 - i}`));
  });

  it(`counts an offset up to ${COUNTED_OFFSET_LIMIT} that no page handed out`, async () => {
    const { store, reads: jobs } = await reads();
    for (let i = 0; i < 10; i++) await store.jobs.create(aJob({ id: `job-${i}`, createdAt: 100 + i }));
    expect((await page(jobs, 5, 2)).ids).toEqual(['job-4', 'job-3']);
    expect(await page(jobs, COUNTED_OFFSET_LIMIT, 2)).toEqual({ ids: [], next: -1 });
  });

  it(`refuses an offset past ${COUNTED_OFFSET_LIMIT} that no page handed out, naming the nearest one the list handed out`, async () => {
    const { store, reads: jobs } = await reads();
    for (let i = 0; i < 5; i++) await store.jobs.create(aJob({ id: `job-${i}`, createdAt: 100 + i }));
    await expect(page(jobs, COUNTED_OFFSET_LIMIT + 1, 2)).rejects.toMatchObject({
      kind: 'bad_request',
      message: expect.stringMatching(/^offset 2001 is past 2000 .* next_offset \(from offset 0\)/),
    });
    await page(jobs, 0, 2);
    await expect(page(jobs, 5_000, 2)).rejects.toMatchObject({ message: expect.stringContaining('from offset 2, the nearest this list handed out') });
    // Another organization's list, or another status, has handed out nothing.
    await expect(page(jobs, 5_000, 2, 'queued')).rejects.toMatchObject({ message: expect.stringContaining('(from offset 0)') });
  });
});

describe('a deep walk (SQLite)', () => {
  it(`goes on past offset ${COUNTED_OFFSET_LIMIT} at each next_offset it was handed`, async () => {
    const store = createSqliteStore(':memory:');
    const access = new FunctionAccess(store);
    const artifacts = {} as never;
    const jobs = new JobReads({ store, access, versions: new VersionService(store, access), views: new JobViews({ store, artifacts }), artifacts });
    const total = COUNTED_OFFSET_LIMIT + 1_100;
    for (let i = 0; i < total; i++) await store.jobs.create(aJob({ id: `job-${String(i).padStart(5, '0')}`, createdAt: 100 + i }));
    const seen: string[] = [];
    for (let offset = 0; offset !== -1;) {
      const answer = await jobPage(await jobs.list(principal, undefined, { limit: 1001, offset }), { limit: 1000, offset });
      seen.push(...answer.data.map((job) => job.id));
      offset = answer.next_offset;
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    await store.close();
  });
});
