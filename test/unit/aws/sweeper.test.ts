import { CodeBuildClient, StartBuildCommand } from '@aws-sdk/client-codebuild';
import { DescribeExecutionCommand, ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodeBuildBuilder } from '../../../shared/adapters/aws/codeBuildBuilder.js';
import { createStepFunctionsScheduler } from '../../../shared/adapters/aws/stepFunctionsScheduler.js';
import { createMemoryJobEvents } from '../../../shared/adapters/local/memoryJobEvents.js';
import { MemoryJobQueue } from '../../../shared/adapters/local/memoryJobQueue.js';
import { createSqliteStore } from '../../../shared/adapters/local/sqlite/sqliteStore.js';
import { QUEUE_MESSAGE_EXPIRED } from '../../../shared/domain/queueRetention.js';
import type { Clock } from '../../../shared/ports/clock.js';
import type { Store } from '../../../shared/ports/store.js';
import { JobLifecycle } from '../../../shared/services/jobLifecycle.js';
import { JobNotifier } from '../../../shared/services/jobNotifier.js';
import { Sweeper } from '../../../shared/services/sweeper.js';
import { WebhookDeliverer } from '../../../shared/services/webhookDeliverer.js';
import { WebhookSecrets } from '../../../shared/services/webhookSecrets.js';
import { aDelivery, aJob, aVersion } from '../../support/fixtures.js';

const codeBuild = mockClient(CodeBuildClient);
const sfn = mockClient(SFNClient);
const stateMachineArn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:sluice-webhooks';
const executionArnOf = (name: string) => `arn:aws:states:eu-west-1:123456789012:execution:sluice-webhooks:${name}`;
const alreadyExists = () => new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} });

const NOW = 1_800_000_000_000_000;
const MINUTE = 60_000_000;
const DAY = 24 * 60 * MINUTE;
const clock: Clock = { now: () => NOW, nowNs: () => BigInt(NOW) * 1000n };

let store: Store;
let sweeper: Sweeper;

beforeEach(() => {
  codeBuild.reset();
  sfn.reset();
  codeBuild.on(StartBuildCommand).resolves({ build: { id: 'sluice-build:1' } });
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn', startDate: new Date() });
  store = createSqliteStore(':memory:');
  const builder = createCodeBuildBuilder({
    client: new CodeBuildClient({ region: 'eu-west-1' }),
    projectName: 'sluice-build',
    store,
    clock,
    bucket: 'b',
    repositoryUri: 'repo',
  });
  const scheduler = createStepFunctionsScheduler({ client: new SFNClient({ region: 'eu-west-1' }), stateMachineArn, onError: () => undefined });
  const deliverer = new WebhookDeliverer(store, new WebhookSecrets(store), async () => ({ status: 200, error: null, permanent: false }), clock, 1000);
  const lifecycle = new JobLifecycle(
    store,
    new MemoryJobQueue(),
    new JobNotifier(
      createMemoryJobEvents(),
      () => undefined,
      () => store.durable(),
    ),
    clock,
  );
  sweeper = new Sweeper(store, builder, scheduler, deliverer, lifecycle, clock);
});
afterEach(async () => {
  await store.close();
});

const startedExecutions = () => sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name);

describe('the sweeper', () => {
  it('starts again the build of a version still queued 5 minutes after its deploy, and only that one', async () => {
    const stuck = aVersion({ createdAt: NOW - 6 * MINUTE, queuedAt: NOW - 6 * MINUTE });
    const fresh = aVersion({ createdAt: NOW - MINUTE, queuedAt: NOW - MINUTE });
    const building = aVersion({ createdAt: NOW - 60 * MINUTE, buildStatus: 'building' });
    for (const version of [stuck, fresh, building]) await store.versions.create(version);

    const report = await sweeper.sweep();
    expect(report.buildsRestarted).toEqual([stuck.id]);
    // The version's id is CodeBuild's idempotency token: a start that did reach CodeBuild within its window is not repeated.
    expect(codeBuild.commandCalls(StartBuildCommand).map((call) => call.args[0].input.idempotencyToken)).toEqual([stuck.id]);
    expect((await store.versions.get(stuck.id))?.buildStatus).toBe('building');
    expect((await store.versions.get(fresh.id))?.buildStatus).toBe('queued');
  });

  it('starts the run of a delivery pending 2 minutes past its due time whose start was lost (its worker died after its first attempt)', async () => {
    const lost = aDelivery({ nextAttemptAt: NOW - 3 * MINUTE, createdAt: NOW - 3 * MINUTE, attempts: [] });
    const due = aDelivery({ nextAttemptAt: NOW - MINUTE });
    for (const delivery of [lost, due]) await store.deliveries.create(delivery);

    const report = await sweeper.sweep();
    expect(report.deliveriesRestarted).toEqual([lost.id]);
    expect(startedExecutions()).toEqual([`${lost.id}-0`]);
  });

  it('leaves alone a delivery whose run is still going (one held behind an earlier delivery)', async () => {
    const held = aDelivery({ nextAttemptAt: NOW - 30 * MINUTE });
    await store.deliveries.create(held);
    sfn.on(StartExecutionCommand).rejects(alreadyExists());
    sfn.on(DescribeExecutionCommand, { executionArn: executionArnOf(`${held.id}-0`) }).resolves({ status: 'RUNNING' });

    const report = await sweeper.sweep();
    expect(report).toMatchObject({ deliveriesRestarted: [], failures: [] });
    expect(await store.deliveries.get(held.id)).toEqual(held);
  });

  it('finds a lost delivery behind more held ones than a sweep takes at once', async () => {
    const held = Array.from({ length: 250 }, (_, index) => aDelivery({ nextAttemptAt: NOW - 60 * MINUTE + index }));
    const lost = aDelivery({ nextAttemptAt: NOW - 10 * MINUTE, attempts: [] });
    for (const delivery of [...held, lost]) await store.deliveries.create(delivery);
    sfn.on(StartExecutionCommand).rejects(alreadyExists());
    sfn.on(StartExecutionCommand, { name: `${lost.id}-0` }).resolves({ executionArn: 'arn', startDate: new Date() });
    sfn.on(DescribeExecutionCommand).resolves({ status: 'RUNNING' });

    const report = await sweeper.sweep();
    expect(report).toMatchObject({ deliveriesRestarted: [lost.id], failures: [] });
  });

  it('records an attempt for a delivery whose run ended without finishing it, and starts a new run', async () => {
    const orphan = aDelivery({ nextAttemptAt: NOW - 20 * MINUTE, attempts: [{ at: NOW - 21 * MINUTE, status: 503, error: 'HTTP 503' }] });
    await store.deliveries.create(orphan);
    sfn.on(StartExecutionCommand, { name: `${orphan.id}-1` }).rejects(alreadyExists());
    sfn.on(DescribeExecutionCommand).resolves({ status: 'FAILED' });

    const report = await sweeper.sweep();
    expect(report.deliveriesRestarted).toEqual([orphan.id]);
    expect(startedExecutions()).toEqual([`${orphan.id}-1`, `${orphan.id}-2`]);
    const after = await store.deliveries.get(orphan.id);
    expect(after?.state).toBe('pending');
    expect(after?.attempts[1]).toEqual({ at: NOW, status: null, error: 'The delivery’s run ended before the delivery did; it was started again.' });
  });

  it('ends in error a job of a ready version that waited 13 days in its queue, before SQS drops its message', async () => {
    const version = aVersion({ buildStatus: 'ready', createdAt: NOW - 30 * DAY, readyAt: NOW - 30 * DAY });
    const building = aVersion({ buildStatus: 'building', createdAt: NOW - 30 * DAY });
    await store.versions.create(version);
    await store.versions.create(building);
    const expired = aJob({ versionId: version.id, createdAt: NOW - 13 * DAY - MINUTE });
    const requeued = aJob({
      versionId: version.id,
      createdAt: NOW - 20 * DAY,
      restarts: [{ timestamp: NOW - DAY, reason: 'preempted', type: 'preemption', run_id: 'r1' }],
    });
    const young = aJob({ versionId: version.id, createdAt: NOW - 12 * DAY });
    const waitingForBuild = aJob({ versionId: building.id, createdAt: NOW - 14 * DAY });
    for (const job of [expired, requeued, young, waitingForBuild]) await store.jobs.create(job);

    const report = await sweeper.sweep();
    expect(report.jobsExpired).toEqual([expired.id]);
    expect(await store.jobs.get(expired.id)).toMatchObject({ status: 'error', error: QUEUE_MESSAGE_EXPIRED, completedAt: NOW });
    for (const job of [requeued, young, waitingForBuild]) expect((await store.jobs.get(job.id))?.status).toBe('queued');
  });

  it('goes on past an item it cannot pick up, and reports it for the next sweep', async () => {
    const [first, second] = [aDelivery({ nextAttemptAt: NOW - 40 * MINUTE }), aDelivery({ nextAttemptAt: NOW - 30 * MINUTE })];
    for (const delivery of [first, second]) await store.deliveries.create(delivery!);
    const throttled = new Error('Rate exceeded');
    sfn.on(StartExecutionCommand, { name: `${first!.id}-0` }).rejects(throttled);

    const report = await sweeper.sweep();
    expect(report.failures).toEqual([{ item: `delivery ${first!.id}`, error: throttled }]);
    expect(report.deliveriesRestarted).toEqual([second!.id]);
  });
});
