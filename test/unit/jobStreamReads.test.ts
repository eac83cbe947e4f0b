import { describe, expect, it } from 'vitest';
import { createPollingJobEvents } from '../../shared/adapters/aws/pollingJobEvents.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { CAUGHT_UP, type StreamItem } from '../../shared/services/eventStream.js';
import { EventStreams } from '../../shared/services/eventStreams.js';
import type { JobReads } from '../../shared/services/jobReads.js';
import type { LogService } from '../../shared/services/logService.js';
import { aJob } from '../support/fixtures.js';

describe('a job’s event stream on AWS reads only what changed', () => {
  it('polls the status, the outputs from its cursor and the lines after it, and reads the whole job once: when it has ended', async () => {
    const store = createSqliteStore(':memory:');
    const job = aJob({ status: 'processing', inputs: { text: 'x'.repeat(100_000) } });
    await store.jobs.create(job);
    const reads = { whole: 0, status: 0, outputs: [] as number[] };
    const jobs = Object.create(store.jobs) as typeof store.jobs;
    jobs.statusOf = async (id) => {
      reads.status += 1;
      return (await store.jobs.get(id))?.status ?? null;
    };
    // What the stream asks of the job service: the whole job (inputs, children) or its outputs from an offset.
    const service = {
      get: async () => {
        reads.whole += 1;
        return { job: (await store.jobs.get(job.id))!, outputs: await store.jobs.listOutputs(job.id, 0), children: [] };
      },
      outputsFrom: async (_id: string, offset: number) => {
        reads.outputs.push(offset);
        return { outputs: await store.jobs.listOutputs(job.id, offset) };
      },
    } as unknown as JobReads;
    const streams = new EventStreams({
      store: { ...store, jobs },
      jobs: service,
      logs: {} as LogService,
      events: createPollingJobEvents({ ...store, jobs }, 10),
      logFeed: { publish: () => undefined, subscribe: () => () => undefined },
      pollMs: 10,
    });
    const stream = await streams.job({ organizationId: job.organizationId, organizationName: 'local' }, job.id, undefined);
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const item of stream(controller.signal) as AsyncIterable<StreamItem>) if (item !== CAUGHT_UP) seen.push(item.event);
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.jobs.appendOutput({ jobId: job.id, index: 0, runId: 'r', type: 'str', name: '', data: 'one' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads.whole).toBe(1); // when the stream opened
    expect(reads.status).toBeGreaterThan(3);
    expect(reads.outputs.at(-1)).toBe(1);
    await store.jobs.transition(job.id, ['processing'], { status: 'finished', completedAt: 1 });
    await reading;
    controller.abort();
    expect(seen).toEqual(['status', 'output', 'status', 'done']);
    expect(reads.whole).toBe(2);
  });
});
