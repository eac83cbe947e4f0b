import { setTimeout as sleep } from 'node:timers/promises';
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobEndsRetried } from '../../../handlers/worker/jobEnds.js';
import { createSqsJobQueue, type SqsJobQueue } from '../../../shared/adapters/aws/sqsJobQueue.js';
import type { JobRecord } from '../../../shared/domain/job.js';
import type { JobReports } from '../../../shared/ports/jobReports.js';
import { aJob } from '../../support/fixtures.js';
import { motoServerOnPath, startMotoServer, type MotoServer } from '../../support/motoServer.js';

const onPath = motoServerOnPath();
if (!onPath) console.warn('Skipping the unwritten job end specs: moto_server is not on PATH (install it with: pip install "moto[server]>=5").');

/** The job moves as the worker gets them, the store refusing a job's end `refusals` times first. */
function lifecycleRefusingEnds(refusals: number): { lifecycle: JobReports; tries: () => number } {
  let tries = 0;
  const end = (job: JobRecord) => {
    tries += 1;
    if (tries <= refusals) return Promise.reject(Object.assign(new Error('Internal server error'), { name: 'InternalServerError' }));
    return Promise.resolve({ ...job, status: 'finished' as const });
  };
  const none = () => Promise.resolve(null);
  return {
    lifecycle: {
      start: none,
      recoverAbandoned: none,
      recordOutput: () => Promise.resolve({ told: Promise.resolve() }),
      failQueued: none,
      settleEnded: () => Promise.resolve(),
      finish: end,
      fail: end,
      interrupt: end,
    },
    tries: () => tries,
  };
}

/**
 * A job's end that DynamoDB would not write (issue 32: acme-6 left `processing` for good, its
 * message held by a heartbeat that never stopped): the worker tries it again, then lets the
 * message go, so the job comes back to a take as redelivered and is recovered, on moto's SQS.
 */
describe.runIf(onPath)('a job whose end could not be written (moto SQS)', () => {
  let moto: MotoServer;
  let client: SQSClient;
  let queue: SqsJobQueue;
  const job = aJob({ status: 'processing' });

  beforeAll(async () => {
    moto = await startMotoServer();
    client = moto.sqs();
  }, 60_000);
  afterAll(async () => {
    await moto?.close();
  });
  beforeEach(async () => {
    await moto.reset();
    const { QueueUrl = '' } = await client.send(new CreateQueueCommand({ QueueName: 'sluice-v-spec' }));
    // Heartbeats every 0.3 s keep a taken message hidden; let go, it is back after 1 s.
    queue = createSqsJobQueue({ client, queueUrlOf: async () => QueueUrl, visibilityTimeoutSeconds: 1, heartbeatSeconds: 0.3, waitTimeSeconds: 0 });
    await queue.enqueue({ id: job.id, versionId: job.versionId, organizationId: job.organizationId });
    expect(await queue.take(job.versionId)).toEqual({ jobId: job.id, redelivered: false });
  });

  it('comes back to a take as redelivered once every try of its end failed', async () => {
    const { lifecycle, tries } = lifecycleRefusingEnds(Infinity);
    const ends = jobEndsRetried(lifecycle, (ended) => queue.letGo(ended.versionId, ended.id), [10, 10]);
    await expect(ends.finish(job)).rejects.toThrow('Internal server error');
    expect(tries()).toBe(3);
    await sleep(1500);
    expect(await queue.take(job.versionId)).toEqual({ jobId: job.id, redelivered: true });
  }, 30_000);

  it('is written on a later try, its message held meanwhile and never taken again', async () => {
    const { lifecycle, tries } = lifecycleRefusingEnds(2);
    const ends = jobEndsRetried(lifecycle, (ended) => queue.letGo(ended.versionId, ended.id), [10, 1500]);
    expect(await ends.fail(job, 'it raised', { retryable: false })).toMatchObject({ id: job.id, status: 'finished' });
    expect(tries()).toBe(3);
    expect(await queue.take(job.versionId)).toBeNull();
    await queue.ack(job.versionId, job.id);
  }, 30_000);
});
