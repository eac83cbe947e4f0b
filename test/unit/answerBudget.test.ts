import { describe, expect, it } from 'vitest';
import {
  ANSWER_BYTES,
  answerBytes,
  JOB_ANSWER_INPUTS_BYTES,
  JOB_ANSWER_VALUES_BYTES,
  LAMBDA_ANSWER_LIMIT_BYTES,
  leadingFit,
} from '../../shared/domain/answerBudget.js';
import type { JobOutput, JobRecord } from '../../shared/domain/job.js';
import { serializeJob } from '../../shared/domain/wire/job.js';
import { collectEvents, formatEvent } from '../../shared/http/serverSentEvents.js';
import type { EventStream, StreamEvent } from '../../shared/services/eventStream.js';
import { JobViews } from '../../shared/services/jobViews.js';
import type { Artifacts } from '../../shared/ports/artifacts.js';
import type { Store } from '../../shared/ports/store.js';

const KB = 1000;
const MB = 1000 * KB;

/** A job's answer as Lambda would return it: the body a JSON string inside its result. */
const lambdaPayloadBytes = (body: unknown) =>
  Buffer.byteLength(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));

const job = (inputs: Record<string, unknown> = { count: 7 }): JobRecord =>
  ({
    id: 'job-1',
    functionId: 'f',
    versionId: 'v',
    organizationId: 'o',
    ownerName: 'local',
    functionName: 'big',
    status: 'finished',
    createdAt: 0,
    startedAt: 0,
    completedAt: 0,
    error: '',
    visibility: 'private',
    runId: 'r',
    inputs,
    env: {},
    webhooks: [],
    source: 'api',
    parentJobId: null,
    restarts: [],
    attempts: 1,
    timeLimitSeconds: null,
  }) as JobRecord;

/** A store holding one job's outputs, and what each view read of it. */
function viewsOver(outputs: JobOutput[]) {
  const store = {
    jobs: {
      listOutputs: async (_jobId: string, offset: number) => outputs.slice(offset),
      listChildSummaries: async () => [],
    },
  } as unknown as Store;
  const artifacts = {
    signedOutputFileUrl: async (jobId: string, slot: number | string) => `https://files.example/${jobId}/${slot}?signature=s`,
  } as unknown as Artifacts;
  return new JobViews({ store, artifacts });
}

const outputsOf = (count: number, each: (index: number) => unknown): JobOutput[] =>
  Array.from({ length: count }, (_, index) => ({ jobId: 'job-1', index, runId: 'r', type: 'str', name: '', data: each(index) }));

describe('one answer’s byte budget', () => {
  it('stays well under Lambda’s 6 MB, however large the one output always let through', () => {
    // The one output let through past the budget follows the inputs: at most 1 MB of JSON, 2 MB escaped.
    expect(Math.max(JOB_ANSWER_VALUES_BYTES, JOB_ANSWER_INPUTS_BYTES + 2 * 1024 * 1024)).toBeLessThanOrEqual(LAMBDA_ANSWER_LIMIT_BYTES - 1024 * 1024);
    expect(ANSWER_BYTES).toBeLessThan(LAMBDA_ANSWER_LIMIT_BYTES);
  });

  it('counts a value as Lambda does: each quote and backslash of its JSON twice', () => {
    expect(answerBytes('abc')).toBe(7); // "abc" printed as \"abc\"
    expect(answerBytes({ a: 1 })).toBe(9);
  });

  it('fits leading items in order, and always at least one', () => {
    expect(leadingFit([3, 3, 3], 7)).toBe(2);
    expect(leadingFit([3, 3, 3], 9)).toBe(3);
    expect(leadingFit([10, 1], 5)).toBe(1);
    expect(leadingFit([], 5)).toBe(0);
  });
});

describe('a job of seven 0.9 MB outputs, shown alone (GET, await, a stream’s done)', () => {
  const outputs = outputsOf(7, (index) => String(index).repeat(900 * KB));

  it('shows its first outputs within the budget and says where the rest begin; reading on from there shows them all', async () => {
    const views = viewsOver(outputs);
    const first = await views.one(job(), 0);
    expect(first.outputs.map((output) => output.index)).toEqual([0, 1, 2, 3]);
    expect(first.nextOutputOffset).toBe(4);
    const firstBody = serializeJob(first.job, first.outputs, first.children, first);
    expect(firstBody).toMatchObject({ outputs_truncated: true, next_output_offset: 4 });
    expect(lambdaPayloadBytes(firstBody)).toBeLessThan(JOB_ANSWER_VALUES_BYTES + 10 * KB);

    const rest = await views.one(job(), 4);
    expect(rest.outputs.map((output) => output.index)).toEqual([4, 5, 6]);
    const restBody = serializeJob(rest.job, rest.outputs, rest.children, rest);
    expect(restBody).not.toHaveProperty('outputs_truncated');
    expect(restBody).not.toHaveProperty('next_output_offset');
  });

  it('counts outputs full of quotes by their escaped size, so the answer still fits', async () => {
    const quoted = outputsOf(7, () => '"'.repeat(450 * KB)); // 0.9 MB of JSON, 1.8 MB escaped
    const view = await viewsOver(quoted).one(job(), 0);
    expect(view.outputs).toHaveLength(2);
    expect(lambdaPayloadBytes(serializeJob(view.job, view.outputs, view.children, view))).toBeLessThan(JOB_ANSWER_VALUES_BYTES + 10 * KB);
  });

  it('shows a job whose outputs fit whole as it always did, with no Sluice fields', async () => {
    const view = await viewsOver(outputsOf(3, (index) => `word ${index}`)).one(job(), 0);
    expect(view.outputs).toHaveLength(3);
    expect(serializeJob(view.job, view.outputs, view.children, view)).not.toHaveProperty('outputs_truncated');
  });

  it('shows inputs past their share null, saying so, and still at least one output', async () => {
    const view = await viewsOver(outputs).one(job({ small: 'kept', large: 'z'.repeat(4 * MB) }), 0);
    expect(view.job.inputs).toEqual({ small: 'kept', large: null });
    const body = serializeJob(view.job, view.outputs, view.children, view);
    expect(body.inputs_truncated).toBe(true);
    expect(view.outputs.length).toBeGreaterThanOrEqual(1);
    expect(lambdaPayloadBytes(body)).toBeLessThan(JOB_ANSWER_VALUES_BYTES + 10 * KB);
  });
});

describe('a buffered event stream (Lambda’s answer) past its budget', () => {
  const big = (id: string): StreamEvent => ({ id, event: 'output', data: { data: 'x'.repeat(900 * KB) } });
  const streamOf = (events: StreamEvent[]): EventStream =>
    async function* () {
      yield* events;
    };

  it('ends before the event that would pass the budget; the reconnection (after the last id sent) gets it', async () => {
    const events = Array.from({ length: 7 }, (_, index) => big(String(index)));
    const answer = await collectEvents(streamOf(events), 10_000);
    expect(answer).toBe(events.slice(0, 5).map(formatEvent).join(''));
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThan(ANSWER_BYTES + 10 * KB);
  });

  it('always sends one event, however large', async () => {
    const one = big('0');
    expect(await collectEvents(streamOf([one]), 10_000, 1000)).toBe(formatEvent(one));
  });
});
