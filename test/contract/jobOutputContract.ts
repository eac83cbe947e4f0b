import { describe, expect, it } from 'vitest';
import type { JobOutput } from '../../shared/domain/job.js';
import { MAX_JOB_ERROR_BYTES } from '../../shared/domain/jobError.js';
import { jsonBytes, LIST_INLINE_BYTES } from '../../shared/domain/listPreview.js';
import type { JobFilter } from '../../shared/ports/store.js';
import { aJob, anOutput } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const indexes = (outputs: JobOutput[]) => outputs.map((output) => output.index);
const everything = { limit: 100, offset: 0 };
const org1: JobFilter = { organizationId: 'org-1' };

/** A job's outputs, and values too large to list whole (inputs, outputs, errors). */
export function describeJobOutputContract(store: CurrentStore): void {
  describe('jobs: outputs and large values', () => {
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
  });
}
