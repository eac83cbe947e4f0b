import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../shared/domain/job.js';
import { LIST_INLINE_BYTES } from '../../shared/domain/listPreview.js';
import type { JobFilter } from '../../shared/ports/store.js';
import { aJob } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);
const everything = { limit: 100, offset: 0 };
const org1: JobFilter = { organizationId: 'org-1' };

/** The job lists: by function, version, organization and status, newest or oldest first, paged in O(page); children; counts. */
export function describeJobListContract(store: CurrentStore): void {
  const createAll = async (jobs: JobRecord[]) => {
    for (const job of jobs) await store().jobs.create(job);
    return jobs;
  };

  describe('jobs: lists', () => {
    it("listByFunction returns the organization's jobs of that function only, newest first", async () => {
      const [old, newest, middle] = await createAll([aJob({ createdAt: 100 }), aJob({ createdAt: 300 }), aJob({ createdAt: 200 })]);
      await createAll([aJob({ functionId: 'function-2', createdAt: 250 }), aJob({ organizationId: 'org-2', createdAt: 260 })]);
      expect(await store().jobs.listByFunction('function-1', org1, everything)).toEqual([newest, middle, old]);
      expect(await store().jobs.listByFunction('function-1', { organizationId: 'org-3' }, everything)).toEqual([]);
    });

    it('lists order jobs created the same microsecond by id, descending', async () => {
      await createAll(['b', 'c', 'a'].map((id) => aJob({ id, createdAt: 100 })));
      expect(ids(await store().jobs.listByFunction('function-1', org1, everything))).toEqual(['c', 'b', 'a']);
      expect(ids(await store().jobs.listByVersion('version-1', org1, everything))).toEqual(['c', 'b', 'a']);
      expect(ids(await store().jobs.listByOrganization(org1, everything))).toEqual(['c', 'b', 'a']);
    });

    it('lists honour limit and offset', async () => {
      await createAll([1, 2, 3, 4, 5].map((n) => aJob({ id: `j${n}`, createdAt: n })));
      const pages = async (limit: number, offset: number) => [
        ids(await store().jobs.listByFunction('function-1', org1, { limit, offset })),
        ids(await store().jobs.listByVersion('version-1', org1, { limit, offset })),
        ids(await store().jobs.listByOrganization(org1, { limit, offset })),
      ];
      expect(await pages(2, 0)).toEqual(Array(3).fill(['j5', 'j4']));
      expect(await pages(2, 2)).toEqual(Array(3).fill(['j3', 'j2']));
      expect(await pages(2, 4)).toEqual(Array(3).fill(['j1']));
      expect(await pages(2, 5)).toEqual(Array(3).fill([]));
    });

    it('lists of every status interleave the statuses newest first, paged across them', async () => {
      const statuses = ['finished', 'queued', 'error', 'processing', 'cancelled', 'finished', 'queued'] as const;
      await createAll(statuses.map((status, n) => aJob({ id: `${status}-${n}`, createdAt: n, status })));
      const newestFirst = statuses.map((status, n) => `${status}-${n}`).reverse();
      for (const list of [
        (page: typeof everything) => store().jobs.listByFunction('function-1', org1, page),
        (page: typeof everything) => store().jobs.listByOrganization(org1, page),
      ]) {
        expect(ids(await list(everything))).toEqual(newestFirst);
        const walked: string[] = [];
        for (let offset = 0; offset < statuses.length; offset += 3) walked.push(...ids(await list({ limit: 3, offset })));
        expect(walked).toEqual(newestFirst);
        expect(ids(await list({ limit: 2, offset: 1 }))).toEqual(newestFirst.slice(1, 3));
      }
    });

    it('lists filtered by status return only jobs in it, paged after filtering', async () => {
      await createAll([
        aJob({ id: 'f1', createdAt: 1, status: 'finished' }),
        aJob({ id: 'q2', createdAt: 2 }),
        aJob({ id: 'f3', createdAt: 3, status: 'finished' }),
        aJob({ id: 'e4', createdAt: 4, status: 'error' }),
        aJob({ id: 'f5', createdAt: 5, status: 'finished' }),
        aJob({ id: 'other-org', createdAt: 6, status: 'finished', organizationId: 'org-2' }),
      ]);
      const finished: JobFilter = { organizationId: 'org-1', status: 'finished' };
      for (const list of [
        (page: typeof everything) => store().jobs.listByFunction('function-1', finished, page),
        (page: typeof everything) => store().jobs.listByOrganization(finished, page),
      ]) {
        expect(ids(await list(everything))).toEqual(['f5', 'f3', 'f1']);
        expect(ids(await list({ limit: 1, offset: 1 }))).toEqual(['f3']);
      }
      expect(await store().jobs.listByOrganization({ organizationId: 'org-1', status: 'cancelled' }, everything)).toEqual([]);
    });

    it("a page is filled past other organizations' jobs, however many come first", async () => {
      await createAll([
        aJob({ id: 'mine-old', createdAt: 1 }),
        aJob({ id: 'mine', createdAt: 2 }),
        ...[3, 4, 5].map((n) => aJob({ id: `theirs-${n}`, createdAt: n, organizationId: 'org-2' })),
      ]);
      expect(ids(await store().jobs.listByFunction('function-1', org1, { limit: 1, offset: 0 }))).toEqual(['mine']);
      expect(ids(await store().jobs.listByVersion('version-1', org1, { limit: 1, offset: 1 }))).toEqual(['mine-old']);
    });

    it("listByVersion returns the organization's jobs of that version only", async () => {
      await createAll([
        aJob({ id: 'v1-old', createdAt: 1 }),
        aJob({ id: 'v2', versionId: 'version-2', createdAt: 2 }),
        aJob({ id: 'v1-new', createdAt: 3 }),
        aJob({ id: 'v1-other-org', organizationId: 'org-2', createdAt: 4 }),
      ]);
      expect(ids(await store().jobs.listByVersion('version-1', org1, everything))).toEqual(['v1-new', 'v1-old']);
      expect(ids(await store().jobs.listByVersion('version-2', org1, everything))).toEqual(['v2']);
      expect(ids(await store().jobs.listByVersion('version-1', { organizationId: 'org-2' }, everything))).toEqual(['v1-other-org']);
    });

    it("listByOrganization returns the organization's jobs across functions and versions, and no other's", async () => {
      await createAll([
        aJob({ id: 'a', createdAt: 1 }),
        aJob({ id: 'b', functionId: 'function-2', versionId: 'version-9', createdAt: 2 }),
        aJob({ id: 'theirs', organizationId: 'org-2', createdAt: 3 }),
      ]);
      expect(ids(await store().jobs.listByOrganization(org1, everything))).toEqual(['b', 'a']);
      expect(ids(await store().jobs.listByOrganization({ organizationId: 'org-2' }, everything))).toEqual(['theirs']);
    });

    it('lists and listByStatus see the status a transition wrote', async () => {
      const job = aJob();
      await store().jobs.create(job);
      await store().jobs.transition(job.id, ['queued'], { status: 'processing' });
      expect(await store().jobs.listByOrganization({ organizationId: 'org-1', status: 'queued' }, everything)).toEqual([]);
      expect(ids(await store().jobs.listByFunction('function-1', { organizationId: 'org-1', status: 'processing' }, everything))).toEqual([job.id]);
      expect(await store().jobs.listByStatus(['queued'])).toEqual([]);
      expect(ids(await store().jobs.listByStatus(['processing']))).toEqual([job.id]);
    });

    it('listChildren returns the jobs pushed from inside that job, oldest first', async () => {
      await createAll([
        aJob({ id: 'second', parentJobId: 'parent-1', createdAt: 2 }),
        aJob({ id: 'first', parentJobId: 'parent-1', createdAt: 1, organizationId: 'org-2' }),
        aJob({ id: 'third', parentJobId: 'parent-1', createdAt: 3 }),
        aJob({ id: 'cousin', parentJobId: 'parent-2', createdAt: 1 }),
        aJob({ id: 'orphan', createdAt: 1 }),
      ]);
      expect(ids(await store().jobs.listChildren('parent-1'))).toEqual(['first', 'second', 'third']);
      expect(await store().jobs.listChildren('orphan')).toEqual([]);
    });

    it('listChildSummaries returns a job’s children as its `children` shows them, oldest first, at most `limit`, all without one', async () => {
      const inputs = { large: 'x'.repeat(LIST_INLINE_BYTES) };
      await createAll([
        aJob({ id: 'second', parentJobId: 'parent-1', createdAt: 2, status: 'finished', ownerName: 'acme', functionName: 'resize', inputs }),
        aJob({ id: 'first', parentJobId: 'parent-1', createdAt: 1, organizationId: 'org-2', error: 'e'.repeat(10_000) }),
        aJob({ id: 'third', parentJobId: 'parent-1', createdAt: 3, status: 'processing' }),
        aJob({ id: 'cousin', parentJobId: 'parent-2', createdAt: 1 }),
      ]);
      const first = { id: 'first', status: 'queued', createdAt: 1, ownerName: aJob().ownerName, functionName: aJob().functionName };
      const second = { id: 'second', status: 'finished', createdAt: 2, ownerName: 'acme', functionName: 'resize' };
      expect(await store().jobs.listChildSummaries('parent-1', 2)).toEqual([first, second]);
      expect(ids((await store().jobs.listChildSummaries('parent-1')) as JobRecord[])).toEqual(['first', 'second', 'third']);
      expect(await store().jobs.listChildSummaries('parent-1', 0)).toEqual([]);
      expect(await store().jobs.listChildSummaries('orphan', 5)).toEqual([]);
    });

    it('listByStatus returns every job in any of the statuses, oldest first, across organizations', async () => {
      await createAll([
        aJob({ id: 'processing', createdAt: 3, status: 'processing' }),
        aJob({ id: 'finished', createdAt: 1, status: 'finished' }),
        aJob({ id: 'queued', createdAt: 2, organizationId: 'org-2', functionId: 'function-2' }),
        aJob({ id: 'cancelled', createdAt: 4, status: 'cancelled' }),
      ]);
      expect(ids(await store().jobs.listByStatus(['queued', 'processing']))).toEqual(['queued', 'processing']);
      expect(await store().jobs.listByStatus(['error'])).toEqual([]);
      expect(await store().jobs.listByStatus([])).toEqual([]);
    });

    it('listQueuedByVersion returns one version’s queued jobs, oldest first, across organizations', async () => {
      await createAll([
        aJob({ id: 'second', createdAt: 2, organizationId: 'org-2' }),
        aJob({ id: 'first', createdAt: 1 }),
        aJob({ id: 'running', createdAt: 0, status: 'processing' }),
        aJob({ id: 'cancelled', createdAt: 0, status: 'cancelled' }),
        aJob({ id: 'other version', createdAt: 0, versionId: 'version-2' }),
      ]);
      expect(ids(await store().jobs.listQueuedByVersion('version-1'))).toEqual(['first', 'second']);
      expect(await store().jobs.listQueuedByVersion('version-3')).toEqual([]);
    });

    it('listQueuedByVersion follows transitions out of queued and back (a requeued job)', async () => {
      const [job] = await createAll([aJob()]);
      await store().jobs.transition(job!.id, ['queued'], { status: 'processing', startedAt: 5 });
      expect(await store().jobs.listQueuedByVersion('version-1')).toEqual([]);
      const requeued = await store().jobs.transition(job!.id, ['processing'], { status: 'queued', startedAt: null, runId: 'run-2' });
      expect(await store().jobs.listQueuedByVersion('version-1')).toEqual([requeued]);
      await store().jobs.transition(job!.id, ['queued'], { status: 'cancelled', completedAt: 6 });
      expect(await store().jobs.listQueuedByVersion('version-1')).toEqual([]);
    });

    it('listQueuedBefore returns the oldest queued jobs created before the bound, at most `limit`, of every version', async () => {
      const T = 1_732_000_000_000_000;
      await createAll([
        ...Array.from({ length: 12 }, (_, n) => aJob({ id: `old-${String(n).padStart(2, '0')}`, createdAt: T + n, versionId: `version-${n % 3}` })),
        aJob({ id: 'at the bound', createdAt: T + 100 }),
        aJob({ id: 'new', createdAt: T + 200 }),
        aJob({ id: 'old but running', createdAt: T - 1, status: 'processing' }),
      ]);
      expect(ids(await store().jobs.listQueuedBefore(T + 100, 5))).toEqual(['old-00', 'old-01', 'old-02', 'old-03', 'old-04']);
      expect(ids(await store().jobs.listQueuedBefore(T + 100, 100))).toHaveLength(12);
      expect(await store().jobs.listQueuedBefore(T, 100)).toEqual([]);
    });

    it("countActive counts the organization's queued and processing jobs, following every move", async () => {
      await createAll([
        aJob({ id: 'q1', status: 'queued' }),
        aJob({ id: 'q2', status: 'queued' }),
        aJob({ id: 'p1', status: 'processing', startedAt: 1 }),
        aJob({ id: 'f1', status: 'finished', startedAt: 1, completedAt: 2 }),
        aJob({ id: 'other', status: 'queued', organizationId: 'org-2' }),
      ]);
      expect(await store().jobs.countActive('org-1')).toEqual({ queued: 2, processing: 1 });
      await store().jobs.transition('q1', ['queued'], { status: 'processing', startedAt: 3 });
      await store().jobs.transition('p1', ['processing'], { status: 'finished', completedAt: 4 });
      await store().jobs.transition('q2', ['queued'], { status: 'cancelled', completedAt: 4 });
      expect(await store().jobs.countActive('org-1')).toEqual({ queued: 0, processing: 1 });
      await store().jobs.transition('q1', ['processing'], { status: 'queued' });
      expect(await store().jobs.countActive('org-1')).toEqual({ queued: 1, processing: 0 });
      expect(await store().jobs.countActive('org-3')).toEqual({ queued: 0, processing: 0 });
    });

    it("listCreatedBetween returns the organization's jobs created in [from, to), of every status, oldest first", async () => {
      await createAll([
        aJob({ id: 'before', createdAt: 9 }),
        aJob({ id: 'b', createdAt: 20 }),
        aJob({ id: 'a', createdAt: 10, status: 'finished' }),
        aJob({ id: 'a2', createdAt: 15, status: 'error' }),
        aJob({ id: 'at the end', createdAt: 30 }),
        aJob({ id: 'theirs', createdAt: 15, organizationId: 'org-2' }),
      ]);
      expect(ids(await store().jobs.listCreatedBetween('org-1', 10, 30))).toEqual(['a', 'a2', 'b']);
      expect(await store().jobs.listCreatedBetween('org-1', 30, 10)).toEqual([]);
    });
  });
}
