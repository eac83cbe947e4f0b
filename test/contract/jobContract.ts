import { describe, expect, it } from 'vitest';
import type { JobOutput, JobRecord } from '../../shared/domain/job.js';
import { MAX_JOB_ERROR_BYTES } from '../../shared/domain/jobError.js';
import { jsonBytes, LIST_INLINE_BYTES } from '../../shared/domain/listPreview.js';
import type { JobFilter } from '../../shared/ports/store.js';
import { aJob, anOutput } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const ids = (jobs: JobRecord[]) => jobs.map((job) => job.id);
const indexes = (outputs: JobOutput[]) => outputs.map((output) => output.index);
const everything = { limit: 100, offset: 0 };
const org1: JobFilter = { organizationId: 'org-1' };

export function describeJobContract(store: CurrentStore): void {
  const createAll = async (jobs: JobRecord[]) => {
    for (const job of jobs) await store().jobs.create(job);
    return jobs;
  };

  describe('jobs', () => {
    it('get returns the job as created: nested inputs, env, webhooks and null fields included', async () => {
      const job = aJob();
      await store().jobs.create(job);
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('get round-trips a restarted child job with its times, run id, error and restarts', async () => {
      const job = aJob({
        status: 'error',
        startedAt: 2,
        completedAt: 3,
        error: 'Traceback:\n  boom',
        visibility: 'public',
        runId: 'run-2',
        inputs: {},
        env: {},
        webhooks: [],
        source: 'dashboard',
        parentJobId: 'parent-1',
        restarts: [{ timestamp: 1, reason: 'replica died', type: 'OOM', run_id: 'run-1' }],
        attempts: 2,
      });
      await store().jobs.create(job);
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('get returns null for an unknown id', async () => {
      expect(await store().jobs.get('no-such-id')).toBeNull();
    });

    it('statusOf reads a job’s current status, and null for an unknown id', async () => {
      const job = aJob({ status: 'processing' });
      await store().jobs.create(job);
      await store().jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
      expect(await store().jobs.statusOf(job.id)).toBe('finished');
      expect(await store().jobs.statusOf('no-such-id')).toBeNull();
    });

    it('create refuses a second job with the same id', async () => {
      const job = aJob();
      await store().jobs.create(job);
      await expect(store().jobs.create(aJob({ id: job.id, functionId: 'function-2' }))).rejects.toThrow();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition applies the patch when the status is one of `from`, and returns the updated job', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const expected = { ...job, status: 'processing', startedAt: 10, runId: 'run-1', attempts: 1 };
      expect(
        await store().jobs.transition(job.id, ['queued', 'processing'], { status: 'processing', startedAt: 10, runId: 'run-1', countAttempt: true }),
      ).toEqual(expected);
      expect(await store().jobs.get(job.id)).toEqual(expected);
    });

    it('transition returns null and changes nothing when the status is not one of `from`', async () => {
      const job = aJob({ status: 'cancelled', completedAt: 5 });
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, ['queued', 'processing'], { status: 'finished', completedAt: 9 })).toBeNull();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition returns null for an unknown id and creates nothing', async () => {
      expect(await store().jobs.transition('no-such-id', ['queued'], { status: 'processing' })).toBeNull();
      expect(await store().jobs.get('no-such-id')).toBeNull();
    });

    it('transition with no `from` statuses never applies', async () => {
      const job = aJob();
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, [], { status: 'processing' })).toBeNull();
      expect(await store().jobs.get(job.id)).toEqual(job);
    });

    it('transition writes nulls and restarts, and leaves fields outside the patch (or undefined in it) as they were', async () => {
      const job = aJob({ status: 'processing', startedAt: 10, runId: 'run-1', attempts: 1 });
      await store().jobs.create(job);
      const restarts = [{ timestamp: 20, reason: 'replica lost', type: 'preemption' as const, run_id: 'run-1' }];
      const updated = await store().jobs.transition(job.id, ['processing'], {
        status: 'queued',
        startedAt: null,
        runId: 'run-2',
        restarts,
        completedAt: undefined,
      });
      const expected = { ...job, status: 'queued', startedAt: null, runId: 'run-2', restarts };
      expect(updated).toEqual(expected);
      expect(await store().jobs.get(job.id)).toEqual(expected);
    });

    it('a move that counts an attempt adds one to the attempts the store holds, without a read before it', async () => {
      const job = aJob({ attempts: 2 });
      await store().jobs.create(job);
      const started = await store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10, countAttempt: true });
      expect(started?.attempts).toBe(3);
      expect((await store().jobs.get(job.id))?.attempts).toBe(3);
    });

    it('a move with deferred durability is decided at once, and is durable once durable() resolves', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const [moved, lost] = [
        await store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10 }, { deferDurability: true }),
        await store().jobs.transition(job.id, ['queued'], { status: 'cancelled', completedAt: 10 }, { deferDurability: true }),
      ];
      expect(moved?.status).toBe('processing');
      expect(lost).toBeNull();
      await store().durable();
      expect((await store().jobs.get(job.id))?.status).toBe('processing');
    });

    it('transition with an empty patch only checks the guard', async () => {
      const job = aJob({ status: 'processing' });
      await store().jobs.create(job);
      expect(await store().jobs.transition(job.id, ['processing'], {})).toEqual(job);
      expect(await store().jobs.transition(job.id, ['queued'], {})).toBeNull();
    });

    it('of two racing transitions from queued, exactly one wins', async () => {
      const job = aJob();
      await store().jobs.create(job);
      const results = await Promise.all([
        store().jobs.transition(job.id, ['queued'], { status: 'processing', startedAt: 10, countAttempt: true }),
        store().jobs.transition(job.id, ['queued'], { status: 'cancelled', completedAt: 10 }),
      ]);
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store().jobs.get(job.id)).toEqual(winners[0]);
    });

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

    it('listOutputs returns the outputs by index, whatever the order they were appended in, skipping `offset`', async () => {
      for (const index of [2, 0, 3, 1]) await store().jobs.appendOutput(anOutput({ index, data: `out-${index}` }));
      expect(indexes(await store().jobs.listOutputs('job-1', 0))).toEqual([0, 1, 2, 3]);
      expect(await store().jobs.listOutputs('job-1', 2)).toEqual([anOutput({ index: 2, data: 'out-2' }), anOutput({ index: 3, data: 'out-3' })]);
      expect(await store().jobs.listOutputs('job-1', 4)).toEqual([]);
    });

    it('listOutputs with a byte budget reads only what one answer holds: those within it, the one passing it, and one more to show more follow', async () => {
      for (const index of [0, 1, 2, 3, 4, 5]) await store().jobs.appendOutput(anOutput({ index, data: 'x'.repeat(98) })); // 100 bytes of JSON each
      expect(indexes(await store().jobs.listOutputs('job-1', 0, 250))).toEqual([0, 1, 2, 3]);
      expect(indexes(await store().jobs.listOutputs('job-1', 3, 250))).toEqual([3, 4, 5]);
      expect(indexes(await store().jobs.listOutputs('job-1', 0, 10))).toEqual([0, 1]);
      expect(indexes(await store().jobs.listOutputs('job-1', 0, 10_000))).toEqual([0, 1, 2, 3, 4, 5]);
    });

    it('listOutputs round-trips output data of any JSON shape', async () => {
      const outputs = [
        anOutput({ index: 0, type: 'dict', name: 'result', data: { nested: [1, 'two', null, { deep: 1e300 }], text: 'héllo ✓' } }),
        anOutput({ index: 1, type: 'NoneType', data: null }),
        anOutput({ index: 2, type: 'float', data: 0.1 }),
        anOutput({ index: 3, type: 'sluice.File', runId: 'run-2', data: { type: 'sluice.File', url: 'https://example.com/out.png' } }),
      ];
      for (const output of outputs) await store().jobs.appendOutput(output);
      expect(await store().jobs.listOutputs('job-1', 0)).toEqual(outputs);
    });

    it('appendOutput stores an output once per job and index: a repeat keeps the first', async () => {
      const first = anOutput({ index: 0, data: 'first' });
      await store().jobs.appendOutput(first);
      await store().jobs.appendOutput(anOutput({ index: 0, runId: 'run-2', data: 'again' }));
      await store().jobs.appendOutput(first);
      expect(await store().jobs.listOutputs('job-1', 0)).toEqual([first]);
    });

    it('a job with a 1 MB input and a 1 MB output round-trips exactly, in gets, lists and transitions', async () => {
      // Past DynamoDB's 400 KB item: multi-byte text, so the limit is passed in bytes, not characters.
      const job = aJob({ inputs: { image: 'é'.repeat(500_000), note: 'small' } });
      await store().jobs.create(job);
      const output = anOutput({ jobId: job.id, index: 0, data: { text: '✓'.repeat(350_000), n: 1 } });
      await store().jobs.appendOutput(output);
      expect(await store().jobs.get(job.id)).toEqual(job);
      expect(await store().jobs.listOutputs(job.id, 0)).toEqual([output]);
      // A list carries the inputs' preview: the large one is null (listPreview.ts).
      expect(await store().jobs.listByOrganization(org1, everything)).toEqual([{ ...job, inputs: { image: null, note: 'small' } }]);
      const finished = { ...job, status: 'finished' as const, completedAt: 10 };
      expect(await store().jobs.transition(job.id, ['queued'], { status: 'finished', completedAt: 10 })).toEqual(finished);
      expect(await store().jobs.listByStatus(['finished'])).toEqual([finished]);
    });

    it('lists of jobs (and of a job’s children) carry a job’s inputs inline while they total at most 64 KB, the others as null; get returns them all', async () => {
      const inputs = {
        small: { nested: [1, 'two'] },
        edge: 'x'.repeat(LIST_INLINE_BYTES - 1_000),
        large: 'y'.repeat(LIST_INLINE_BYTES),
        after: 'z'.repeat(2_000),
      };
      const job = aJob({ inputs, parentJobId: 'parent-1', functionId: 'function-9', versionId: 'version-9' });
      await store().jobs.create(job);
      const listed = { ...job, inputs: { small: inputs.small, edge: inputs.edge, large: null, after: null } };
      expect(await store().jobs.listByOrganization(org1, everything)).toEqual([listed]);
      expect(await store().jobs.listByFunction('function-9', org1, everything)).toEqual([listed]);
      expect(await store().jobs.listByVersion('version-9', org1, everything)).toEqual([listed]);
      expect(await store().jobs.listChildren('parent-1')).toEqual([listed]);
      expect(await store().jobs.get(job.id)).toEqual(job);
      const finished = await store().jobs.transition(job.id, ['queued'], { status: 'finished', completedAt: 10 });
      expect(finished?.inputs).toEqual(inputs);
      expect((await store().jobs.listByOrganization(org1, everything))[0]?.inputs).toEqual(listed.inputs);
    });

    it('listOutputPreviews inlines each output up to 64 KB while the budget lasts, names the rest with their size, and lists at most `max`', async () => {
      const small = anOutput({ jobId: 'job-p', index: 0, data: { n: 1 } });
      const large = anOutput({ jobId: 'job-p', index: 1, name: 'big', type: 'dict', data: { text: 'z'.repeat(LIST_INLINE_BYTES) } });
      const medium = anOutput({ jobId: 'job-p', index: 2, data: 'm'.repeat(40_000) });
      const another = anOutput({ jobId: 'job-p', index: 3, data: 'n'.repeat(40_000) });
      for (const output of [small, large, medium, another]) await store().jobs.appendOutput(output);
      const bytesOf = (output: JobOutput) => jsonBytes(output.data);
      const inline = (output: JobOutput) => ({ ...output, omitted: false, bytes: bytesOf(output) });
      const left = (output: JobOutput) => ({ ...output, data: null, omitted: true, bytes: bytesOf(output) });
      expect(await store().jobs.listOutputPreviews('job-p', { budget: 60_000, max: 10 })).toEqual([inline(small), left(large), inline(medium), left(another)]);
      expect(await store().jobs.listOutputPreviews('job-p', { budget: 1_000_000, max: 3 })).toEqual([inline(small), left(large), inline(medium)]);
      expect(await store().jobs.listOutputPreviews('job-p', { budget: 0, max: 1 })).toEqual([left(small)]);
      expect(await store().jobs.listOutputPreviews('no-such-job', { budget: 1_000_000, max: 10 })).toEqual([]);
      expect(await store().jobs.listOutputs('job-p', 0)).toEqual([small, large, medium, another]);
    });

    it('a repeated large output keeps the first, as a small one does', async () => {
      const first = anOutput({ index: 0, data: 'a'.repeat(1_000_000) });
      await store().jobs.appendOutput(first);
      await store().jobs.appendOutput(anOutput({ index: 0, runId: 'run-2', data: 'b'.repeat(1_000_000) }));
      expect(await store().jobs.listOutputs('job-1', 0)).toEqual([first]);
    });

    it('keeps an error of up to 64 KB whole, and a longer one (a long traceback) as its end behind a marker saying how much was cut, in gets and lists', async () => {
      const job = aJob({ status: 'processing', startedAt: 1 });
      await store().jobs.create(job);
      const whole = `Traceback:\n${'x'.repeat(MAX_JOB_ERROR_BYTES - 27)}ValueError: boom`;
      expect((await store().jobs.transition(job.id, ['processing'], { status: 'queued', error: whole }))?.error).toBe(whole);
      // Multi-byte text: the cap is in bytes, and the cut never splits a character.
      const traceback = `Traceback:\n${'  File "é.py", line 1\n'.repeat(40_000)}ValueError: boom`;
      const kept = (await store().jobs.transition(job.id, ['queued'], { status: 'error', error: traceback }))?.error ?? '';
      expect(Buffer.byteLength(kept, 'utf8')).toBeLessThanOrEqual(MAX_JOB_ERROR_BYTES);
      expect(kept).toMatch(/^\[Sluice cut \d+ bytes of this error: its first part; the end follows\.\]\n/);
      expect(kept.endsWith('  File "é.py", line 1\nValueError: boom')).toBe(true);
      const cut = Number(/cut (\d+) bytes/.exec(kept)?.[1]);
      expect(cut + Buffer.byteLength(kept.slice(kept.indexOf('\n') + 1), 'utf8')).toBe(Buffer.byteLength(traceback, 'utf8'));
      expect((await store().jobs.get(job.id))?.error).toBe(kept);
      expect((await store().jobs.listByOrganization(org1, everything))[0]?.error).toBe(kept);
      await store().jobs.transition(job.id, ['error'], { error: 'short' });
      expect((await store().jobs.get(job.id))?.error).toBe('short');
    });

    it('create cuts an error of more than 64 KB the same way', async () => {
      const job = aJob({ status: 'error', error: `${'é'.repeat(MAX_JOB_ERROR_BYTES)}the end` });
      await store().jobs.create(job);
      const kept = (await store().jobs.get(job.id))?.error ?? '';
      expect(Buffer.byteLength(kept, 'utf8')).toBeLessThanOrEqual(MAX_JOB_ERROR_BYTES);
      expect(kept).toMatch(/^\[Sluice cut \d+ bytes.*\n(é)+the end$/);
    });

    it("listOutputs never mixes in another job's outputs", async () => {
      await store().jobs.appendOutput(anOutput({ jobId: 'job-1', index: 0, data: 'mine' }));
      await store().jobs.appendOutput(anOutput({ jobId: 'job-2', index: 0, data: 'theirs' }));
      await store().jobs.appendOutput(anOutput({ jobId: 'job-2', index: 1, data: 'theirs too' }));
      expect(await store().jobs.listOutputs('job-1', 0)).toEqual([anOutput({ jobId: 'job-1', index: 0, data: 'mine' })]);
      expect(indexes(await store().jobs.listOutputs('job-2', 0))).toEqual([0, 1]);
      expect(await store().jobs.listOutputs('job-3', 0)).toEqual([]);
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
