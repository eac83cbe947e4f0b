import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DOCKERFILE_SCRIPT } from '../infra/buildspec.js';
import { decodeRunCommands } from '../shared/domain/runCommands.js';
import { ensureSystemPackages } from '../shared/adapters/local/build/systemPackages.js';
import { findPythonInterpreter } from '../shared/adapters/local/build/pythonInterpreters.js';
import { PythonEnvironments } from '../shared/adapters/local/build/pythonEnvironments.js';
import { defaultPackagesFor } from '../shared/domain/defaultPackages.js';
import { runCommand } from '../shared/system/runCommand.js';
import { NO_SANDBOX } from '../shared/adapters/local/sandbox/sandbox.js';
import type { AwsClients } from './awsClients.js';
import type { CloudAssembly } from './cloudAssembly.js';
import type { EventBridge } from './eventBridge.js';
import type { ImageRegistry } from './imageRegistry.js';
import type { Resolver } from './intrinsics.js';

/** CodeBuild's phases, in order; each completed one is a "Build Phase Change" event. */
const PHASES = [
  'SUBMITTED',
  'QUEUED',
  'PROVISIONING',
  'DOWNLOAD_SOURCE',
  'INSTALL',
  'PRE_BUILD',
  'BUILD',
  'POST_BUILD',
  'UPLOAD_ARTIFACTS',
  'FINALIZING',
] as const;
type Phase = (typeof PHASES)[number];

export interface StartedBuild {
  id: string;
  arn: string;
  projectName: string;
  overrides: { name: string; value: string }[];
}

/**
 * CodeBuild, emulated: a build started through moto runs here, phase by phase, sending the
 * events CodeBuild sends (state IN_PROGRESS, a phase change per completed phase with its
 * status, state SUCCEEDED or FAILED) to EventBridge, and its log to CloudWatch Logs
 * (`/aws/codebuild/<project>`). The phases do what the buildspec does, with the image as a
 * folder instead of a container: PRE_BUILD fetches the bundle from S3 and the worker asset;
 * BUILD runs the buildspec's own Dockerfile script (its checks and the requirements it
 * writes), then makes the image's Python environment with pip and checks its system
 * packages; POST_BUILD pushes the folder to the image registry under IMAGE_URI.
 */
export class CodeBuildEmulator {
  private readonly environments: PythonEnvironments;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      assembly: CloudAssembly;
      resolve: Resolver;
      clients: AwsClients;
      bus: EventBridge;
      images: ImageRegistry;
      workDir: string;
      python: string;
      pipArgs: string[];
      onEvent: (message: string) => void;
    },
  ) {
    // CodeBuild runs each build in its own container: nothing to confine it further here.
    // SLUICE_ENVIRONMENTS_DIR: environments shared with other services on this machine (a test run's, say).
    this.environments = new PythonEnvironments({
      folder: process.env.SLUICE_ENVIRONMENTS_DIR ?? join(deps.workDir, 'envs'),
      scratchFolder: join(deps.workDir, 'build-scratch'),
      pipArgs: deps.pipArgs,
      sandbox: NO_SANDBOX,
    });
  }

  start(build: StartedBuild): void {
    const run = this.run(build)
      .catch((error: unknown) => this.deps.onEvent(`CodeBuild ${build.id}: ${(error as Error).stack}`))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private projectVariables(projectName: string): Record<string, string> {
    const project = this.deps.assembly
      .ofType('AWS::CodeBuild::Project')
      .find(({ stack, resource }) => this.deps.resolve(stack, resource.Properties?.Name) === projectName);
    if (!project) return {};
    const variables = this.deps.resolve(project.stack, project.resource.Properties?.Environment?.EnvironmentVariables ?? []) as {
      Name: string;
      Value: string;
    }[];
    return Object.fromEntries(variables.map((variable) => [variable.Name, variable.Value]));
  }

  private async run(build: StartedBuild): Promise<void> {
    const variables = { ...this.projectVariables(build.projectName), ...Object.fromEntries(build.overrides.map((entry) => [entry.name, entry.value])) };
    const additional = {
      environment: { 'environment-variables': Object.entries(variables).map(([name, value]) => ({ name, value, type: 'PLAINTEXT' })) },
      logs: { 'group-name': `/aws/codebuild/${build.projectName}`, 'stream-name': build.id.split(':').pop() },
    };
    const base = { 'project-name': build.projectName, 'build-id': build.arn, 'additional-information': additional, version: '1' };
    const state = (status: string, phase: string) =>
      this.deps.bus.put({
        source: 'aws.codebuild',
        'detail-type': 'CodeBuild Build State Change',
        resources: [build.arn],
        detail: { ...base, 'build-status': status, 'current-phase': phase, 'current-phase-context': '[]' },
      });
    const phaseDone = (phase: Phase, status: string) =>
      this.deps.bus.put({
        source: 'aws.codebuild',
        'detail-type': 'CodeBuild Build Phase Change',
        resources: [build.arn],
        detail: { ...base, 'completed-phase': phase, 'completed-phase-status': status, 'completed-phase-context': '[]' },
      });

    const log = await this.buildLog(build);
    const dir = join(this.deps.workDir, 'builds', build.id.replace(/[^A-Za-z0-9_-]/g, '_'));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'image', 'code'), { recursive: true });
    state('IN_PROGRESS', 'SUBMITTED');
    const steps: Partial<Record<Phase, () => Promise<void>>> = {
      PRE_BUILD: () => this.fetch(variables, dir, log.line),
      BUILD: () => this.buildImage(variables, dir, log.line),
      POST_BUILD: () => this.push(variables, dir, log.line),
    };
    let failedIn: Phase | null = null;
    for (const phase of PHASES) {
      // A failed PRE_BUILD goes straight to FINALIZING; a failed BUILD still runs POST_BUILD,
      // whose command pushes nothing unless the build is succeeding.
      if (failedIn === 'PRE_BUILD' && phase !== 'FINALIZING') continue;
      const step = failedIn === null ? steps[phase] : undefined;
      let status = 'SUCCEEDED';
      try {
        if (step) log.line(`[Container] Entering phase ${phase}`);
        await step?.();
      } catch (error) {
        log.line(`[Container] Command did not exit successfully: ${(error as Error).message}`);
        log.line(`[Container] Phase complete: ${phase} State: FAILED`);
        status = 'FAILED';
        failedIn = phase;
      }
      phaseDone(phase, status);
    }
    await log.flush();
    rmSync(dir, { recursive: true, force: true });
    state(failedIn === null ? 'SUCCEEDED' : 'FAILED', 'COMPLETED');
  }

  private async fetch(variables: Record<string, string>, dir: string, line: (text: string) => void): Promise<void> {
    const bundle = /^s3:\/\/([^/]+)\/(.+)$/.exec(variables.BUNDLE_URI ?? '');
    if (!bundle || !variables.IMAGE_URI) throw new Error('BUNDLE_URI and IMAGE_URI are set per build by the service');
    line(`aws s3 cp ${variables.BUNDLE_URI} bundle.tar.gz`);
    const { Body } = await this.deps.clients.s3.send(new GetObjectCommand({ Bucket: bundle[1], Key: bundle[2] }));
    writeFileSync(join(dir, 'bundle.tar.gz'), await (Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
    const untar = await runCommand('tar', ['-xzf', join(dir, 'bundle.tar.gz'), '-C', join(dir, 'image', 'code')], { onLine: line });
    if (untar.exitCode !== 0) throw new Error('tar -xzf bundle.tar.gz failed');
    // The worker asset sits in the CDK assets bucket on AWS; here, in the cloud assembly.
    const workerKey = /\/([^/]+\.zip)$/.exec(variables.WORKER_URI ?? '')?.[1];
    if (!workerKey) throw new Error(`WORKER_URI "${variables.WORKER_URI}" names no asset`);
    line(`aws s3 cp ${variables.WORKER_URI} worker.zip`);
    cpSync(this.deps.assembly.assetDir(workerKey), join(dir, 'image', 'worker'), { recursive: true });
  }

  private async buildImage(variables: Record<string, string>, dir: string, line: (text: string) => void): Promise<void> {
    const script = await runCommand('bash', ['-c', DOCKERFILE_SCRIPT], {
      cwd: dir,
      env: { ...process.env, ...variables, AWS_REGION: 'us-east-1' },
      onLine: line,
    });
    if (script.exitCode !== 0) throw new Error('writing the Dockerfile failed');
    line(`docker build --tag "${variables.IMAGE_URI}" image`);
    const packages = (variables.PYTHON_PACKAGES ?? '').split(' ').filter(Boolean);
    const runCommands = decodeRunCommands(variables.RUN_COMMANDS ?? '');
    const system = (variables.SYSTEM_PACKAGES ?? '').split(' ').filter(Boolean);
    // Checked only: the image's Dockerfile installs them on AWS; this machine's are the operator's.
    await ensureSystemPackages(system, { install: 'off', say: line });
    const interpreter = await findPythonInterpreter(variables.PYTHON_VERSION ?? '', { defaultPython: this.deps.python });
    // As the image's Dockerfile does: Sieve's default packages, unless the version pins its own.
    const venv = await this.environments.ensure(interpreter, { packages, runCommands, defaults: defaultPackagesFor(packages) }, line);
    writeFileSync(join(dir, 'image', 'venv'), venv);
  }

  private async push(variables: Record<string, string>, dir: string, line: (text: string) => void): Promise<void> {
    line(`docker push "${variables.IMAGE_URI}"`);
    await this.deps.images.push(variables.IMAGE_URI as string, join(dir, 'image'));
  }

  /** The build's log, sent to CloudWatch Logs in batches, as CodeBuild streams it. */
  private async buildLog(build: StartedBuild) {
    const { logs } = this.deps.clients;
    const logGroupName = `/aws/codebuild/${build.projectName}`;
    const logStreamName = build.id.split(':').pop() as string;
    // CodeBuild makes its log group on first use.
    await logs.send(new CreateLogGroupCommand({ logGroupName })).catch(() => undefined);
    await logs.send(new CreateLogStreamCommand({ logGroupName, logStreamName }));
    let pending: { timestamp: number; message: string }[] = [];
    const flush = async () => {
      const batch = pending;
      pending = [];
      if (batch.length > 0) await logs.send(new PutLogEventsCommand({ logGroupName, logStreamName, logEvents: batch })).catch(() => undefined);
    };
    return {
      line: (message: string) => {
        pending.push({ timestamp: Date.now(), message });
        if (pending.length >= 100) void flush();
      },
      flush,
    };
  }
}
