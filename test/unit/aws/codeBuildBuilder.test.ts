import { CodeBuildClient, StartBuildCommand } from '@aws-sdk/client-codebuild';
import { mockClient } from 'aws-sdk-client-mock';
import { setTimeout } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPhaseToStatus, createCodeBuildBuilder, phaseStartedAfter } from '../../../shared/adapters/aws/codeBuildBuilder.js';
import { createSqliteStore } from '../../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../../shared/adapters/systemClock.js';
import type { Store } from '../../../shared/ports/store.js';
import { aVersion } from '../../support/fixtures.js';

const codeBuild = mockClient(CodeBuildClient);
const REPOSITORY = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-functions';

let store: Store;
const builderOf = (errors: unknown[] = []) =>
  createCodeBuildBuilder({
    client: new CodeBuildClient({ region: 'eu-west-1' }),
    projectName: 'sluice-build',
    store,
    clock: createSystemClock(),
    bucket: 'sluice-artifacts',
    repositoryUri: REPOSITORY,
    onError: (error) => errors.push(error),
  });

beforeEach(() => {
  codeBuild.reset();
  codeBuild.on(StartBuildCommand).resolves({ build: { id: 'sluice-build:1' } });
  store = createSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

describe('createCodeBuildBuilder', () => {
  it('starts a build with the version in its environment and moves the version to building', async () => {
    const version = aVersion({ cudaVersion: '12.1', runCommands: ['apt-get install -y "sox"', 'echo done'] });
    await store.versions.create(version);
    await builderOf().enqueue(version.id);

    expect(codeBuild.commandCalls(StartBuildCommand).map((call) => call.args[0].input)).toEqual([
      {
        projectName: 'sluice-build',
        idempotencyToken: version.id,
        environmentVariablesOverride: [
          { name: 'VERSION_ID', value: version.id, type: 'PLAINTEXT' },
          { name: 'BUNDLE_URI', value: `s3://sluice-artifacts/bundles/${version.id}.tar.gz`, type: 'PLAINTEXT' },
          { name: 'IMAGE_URI', value: `${REPOSITORY}:${version.id}`, type: 'PLAINTEXT' },
          { name: 'PYTHON_VERSION', value: '3.11', type: 'PLAINTEXT' },
          { name: 'PYTHON_PACKAGES', value: 'numpy==2.1.0 torch', type: 'PLAINTEXT' },
          { name: 'SYSTEM_PACKAGES', value: 'ffmpeg', type: 'PLAINTEXT' },
          // One JSON string a line, base64: any command survives the trip through an environment variable.
          { name: 'RUN_COMMANDS', value: Buffer.from('"apt-get install -y \\"sox\\""\n"echo done"').toString('base64'), type: 'PLAINTEXT' },
          { name: 'CUDA_VERSION', value: '12.1', type: 'PLAINTEXT' },
          // The image's last step imports the entry file, as a replica will.
          { name: 'ENTRY_FILE', value: version.entrypoint.file, type: 'PLAINTEXT' },
          { name: 'ENTRY_SYMBOL', value: version.entrypoint.symbol, type: 'PLAINTEXT' },
        ],
      },
    ]);
    // Only the status moves: the build's events stamp the times.
    expect(await store.versions.get(version.id)).toEqual({ ...version, buildStatus: 'building' });
  });

  it('resolves only once CodeBuild has answered and the version is building', async () => {
    const events: string[] = [];
    codeBuild.on(StartBuildCommand).callsFake(async () => {
      await setTimeout(50);
      events.push('StartBuild answered');
      return { build: { id: 'sluice-build:1' } };
    });
    const version = aVersion();
    await store.versions.create(version);
    await builderOf().enqueue(version.id);
    events.push('enqueue resolved');
    expect(events).toEqual(['StartBuild answered', 'enqueue resolved']);
    expect((await store.versions.get(version.id))?.buildStatus).toBe('building');
  });

  it('reports a failure to record the start (the version stays queued for the sweeper) instead of rejecting', async () => {
    const version = aVersion();
    await store.versions.create(version);
    const errors: unknown[] = [];
    const failing: Store = { ...store, versions: { ...store.versions, transition: () => Promise.reject(new Error('ProvisionedThroughputExceeded')) } };
    const builder = createCodeBuildBuilder({
      client: new CodeBuildClient({ region: 'eu-west-1' }),
      projectName: 'sluice-build',
      store: failing,
      clock: createSystemClock(),
      bucket: 'b',
      repositoryUri: REPOSITORY,
      onError: (error) => errors.push(error),
    });
    await builder.enqueue(version.id);
    expect(errors).toEqual([new Error('ProvisionedThroughputExceeded')]);
    expect((await store.versions.get(version.id))?.buildStatus).toBe('queued');
  });

  it('passes empty package lists and no CUDA version as empty strings', async () => {
    const version = aVersion({ computeType: 'cpu', pythonPackages: [], systemPackages: [], cudaVersion: null });
    await store.versions.create(version);
    await builderOf().enqueue(version.id);
    const variables = codeBuild.commandCalls(StartBuildCommand)[0]?.args[0].input.environmentVariablesOverride ?? [];
    expect(Object.fromEntries(variables.map(({ name, value }) => [name, value]))).toMatchObject({ PYTHON_PACKAGES: '', SYSTEM_PACKAGES: '', CUDA_VERSION: '' });
  });

  it('moves the version to error with the reason when the build cannot start', async () => {
    codeBuild.on(StartBuildCommand).rejects(new Error('AccountLimitExceededException: too many builds'));
    const version = aVersion();
    await store.versions.create(version);
    const errors: unknown[] = [];
    await builderOf(errors).enqueue(version.id);
    expect(await store.versions.get(version.id)).toMatchObject({
      buildStatus: 'error',
      buildError: 'The build could not start: AccountLimitExceededException: too many builds',
    });
    expect(errors).toEqual([]);
  });

  it('starts one build for a version enqueued twice', async () => {
    const version = aVersion();
    await store.versions.create(version);
    const builder = builderOf();
    await Promise.all([builder.enqueue(version.id), builder.enqueue(version.id)]);
    await builder.enqueue(version.id);
    expect(codeBuild.commandCalls(StartBuildCommand)).toHaveLength(1);
    expect((await store.versions.get(version.id))?.buildStatus).toBe('building');
  });

  it('starts nothing for a version that is no longer queued, or unknown', async () => {
    const version = aVersion({ buildStatus: 'ready' });
    await store.versions.create(version);
    const builder = builderOf();
    await builder.enqueue(version.id);
    await builder.enqueue('no-such-version');
    expect(codeBuild.commandCalls(StartBuildCommand)).toHaveLength(0);
    expect((await store.versions.get(version.id))?.buildStatus).toBe('ready');
  });
});

describe('buildPhaseToStatus', () => {
  it('maps the image build to building and the push to ECR to pushing', () => {
    expect(buildPhaseToStatus('BUILD', 'IN_PROGRESS')).toBe('building');
    expect(buildPhaseToStatus('BUILD', 'SUCCEEDED')).toBe('building');
    expect(buildPhaseToStatus('POST_BUILD', 'SUCCEEDED')).toBe('pushing');
  });

  it('hands a successful build to the deployer', () => {
    expect(buildPhaseToStatus('COMPLETED', 'SUCCEEDED')).toBe('deploying');
  });

  it('maps every failed status to error, in any phase', () => {
    for (const status of ['FAILED', 'FAULT', 'TIMED_OUT', 'STOPPED']) {
      expect(buildPhaseToStatus('INSTALL', status)).toBe('error');
      expect(buildPhaseToStatus('COMPLETED', status)).toBe('error');
    }
  });

  it('changes nothing for the other phases', () => {
    for (const phase of ['SUBMITTED', 'QUEUED', 'PROVISIONING', 'DOWNLOAD_SOURCE', 'INSTALL', 'PRE_BUILD', 'UPLOAD_ARTIFACTS', 'FINALIZING'])
      expect(buildPhaseToStatus(phase, 'SUCCEEDED')).toBeNull();
    expect(buildPhaseToStatus('COMPLETED', 'IN_PROGRESS')).toBeNull();
  });
});

describe('phaseStartedAfter', () => {
  it('reads a phase-change event’s completed phase as the next phase having started', () => {
    expect(phaseStartedAfter('PRE_BUILD')).toBe('BUILD');
    expect(phaseStartedAfter('BUILD')).toBe('POST_BUILD');
    expect(buildPhaseToStatus(phaseStartedAfter('BUILD'), 'IN_PROGRESS')).toBe('pushing');
    expect(phaseStartedAfter('COMPLETED')).toBe('COMPLETED');
  });
});
