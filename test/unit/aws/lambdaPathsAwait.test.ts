import { CodeBuildClient, StartBuildCommand } from '@aws-sdk/client-codebuild';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodeBuildBuilder } from '../../../shared/adapters/aws/codeBuildBuilder.js';
import { createStepFunctionsScheduler } from '../../../shared/adapters/aws/stepFunctionsScheduler.js';
import { createFileArtifacts } from '../../../shared/adapters/local/fileArtifacts.js';
import { LocalUploads } from '../../../shared/adapters/local/localUploads.js';
import { createSqliteStore } from '../../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../../shared/adapters/systemClock.js';
import { functionMetadataSchema } from '../../../shared/domain/functionMetadata.js';
import type { Store } from '../../../shared/ports/store.js';
import { DeployService } from '../../../shared/services/deployService.js';
import { WebhookService } from '../../../shared/services/webhookService.js';
import { aJob } from '../../support/fixtures.js';

/**
 * On AWS a Lambda's process is frozen the moment its handler returns: a call still in flight
 * may never be sent. The paths a handler runs resolve only once their AWS calls have answered.
 */
const codeBuild = mockClient(CodeBuildClient);
const sfn = mockClient(SFNClient);
const clock = createSystemClock();
const stateMachineArn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:sluice-webhooks';
const principal = { organizationId: 'org-1', organizationName: 'acme' };

let store: Store;
let dataDir: string;
let events: string[];

/** An AWS call that answers after a while, noting when it did. */
const slowly =
  <T>(name: string, answer: T) =>
  async () => {
    await setTimeout(50);
    events.push(`${name} answered`);
    return answer;
  };

beforeEach(() => {
  codeBuild.reset();
  sfn.reset();
  store = createSqliteStore(':memory:');
  dataDir = mkdtempSync(join(tmpdir(), 'sluice-await-'));
  events = [];
});
afterEach(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const webhookService = (errors: unknown[] = []) =>
  new WebhookService(
    store,
    createStepFunctionsScheduler({
      client: new SFNClient({ region: 'eu-west-1' }),
      stateMachineArn,
      onError: (error, deliveryId) => errors.push([error, deliveryId]),
    }),
    clock,
  );

describe('Lambda paths wait for their AWS calls', () => {
  it('a deploy answers only after CodeBuild started the build, with the version building', async () => {
    codeBuild.on(StartBuildCommand).callsFake(slowly('StartBuild', { build: { id: 'sluice-build:1' } }));
    const builder = createCodeBuildBuilder({
      client: new CodeBuildClient({ region: 'eu-west-1' }),
      projectName: 'sluice-build',
      store,
      clock,
      bucket: 'sluice-artifacts',
      repositoryUri: 'repo',
    });
    const deploy = new DeployService(
      store,
      createFileArtifacts(dataDir, new LocalUploads({ folder: join(dataDir, 'uploads'), publicUrl: () => 'http://127.0.0.1:0', clock })),
      builder,
      clock,
      '3.11',
      64 * 1024 * 1024,
      async () => undefined,
    );
    const metadata = functionMetadataSchema.parse({ name: 'resize', entrypoint: { file: 'main.py', symbol: 'resize', kind: 'function' } });
    const { version } = await deploy.deploy(principal, 'acme', metadata, { bundle: Buffer.from('bundle') });
    events.push('deploy answered');
    expect(events).toEqual(['StartBuild answered', 'deploy answered']);
    expect((await store.versions.get(version.id))?.buildStatus).toBe('building');
  });

  it('a job event with webhooks (a cancel, a failed build, a worker move) ends only after every delivery started', async () => {
    sfn.on(StartExecutionCommand).callsFake(slowly('StartExecution', { executionArn: 'arn', startDate: new Date() }));
    const job = aJob({
      status: 'cancelled',
      completedAt: 1,
      webhooks: [
        { type: 'job.complete', url: 'https://a.example.com/' },
        { type: 'job.complete.no_output', url: 'https://b.example.com/' },
      ],
    });
    await webhookService().onJobEvent({ type: 'completed', job });
    events.push('observer done');
    expect(events).toEqual(['StartExecution answered', 'StartExecution answered', 'observer done']);
  });

  it('a resend answers only after its deliveries started', async () => {
    sfn.on(StartExecutionCommand).callsFake(slowly('StartExecution', { executionArn: 'arn', startDate: new Date() }));
    const job = aJob({ organizationId: 'org-1', status: 'finished', startedAt: 1, completedAt: 2 });
    await store.jobs.create(job);
    const created = await webhookService().resend(principal, job.id);
    events.push('resend answered');
    expect(created).toHaveLength(1);
    expect(events).toEqual(['StartExecution answered', 'resend answered']);
  });

  it('a delivery whose run could not start is logged and stays pending in the store, for the sweeper; the others still start', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    sfn.on(StartExecutionCommand).rejectsOnce(throttled).resolves({ executionArn: 'arn', startDate: new Date() });
    const job = aJob({
      status: 'error',
      completedAt: 1,
      webhooks: [
        { type: 'job.complete', url: 'https://a.example.com/' },
        { type: 'job.complete', url: 'https://b.example.com/' },
      ],
    });
    const errors: unknown[] = [];
    await webhookService(errors).onJobEvent({ type: 'completed', job });
    const [first, second] = await store.deliveries.listByJob(job.id);
    expect(errors).toEqual([[throttled, first?.id]]);
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => JSON.parse(call.args[0].input.input ?? '{}'))).toEqual([
      { deliveryId: first?.id },
      { deliveryId: second?.id },
    ]);
    expect((await store.deliveries.listPending()).map((delivery) => delivery.id)).toContain(first?.id);
  });
});
