import { StartBuildCommand, type CodeBuildClient } from '@aws-sdk/client-codebuild';
import type { BuildStatus } from '../../domain/buildStatus.js';
import { encodeRunCommands } from '../../domain/runCommands.js';
import type { VersionRecord } from '../../domain/version.js';
import type { Builder } from '../../ports/builder.js';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import { bundleKeyOf } from './s3Artifacts.js';

export interface CodeBuildBuilderOptions {
  client: CodeBuildClient;
  /** The CodeBuild project whose buildspec builds the image and pushes it to ECR. */
  projectName: string;
  store: Store;
  /** Unused for now: the build's events, not its start, stamp the version's times. */
  clock: Clock;
  /** The artifacts bucket, where the version's bundle lies. */
  bucket: string;
  /** The ECR repository; each version's image is tagged with its id. */
  repositoryUri: string;
  /** Failures that are not the build's own (the store unreachable while recording one). */
  onError?: (error: unknown, versionId: string) => void;
}

/**
 * Starts a CodeBuild build per version and resolves once CodeBuild has answered and the answer
 * is recorded. From there the build reports itself: its phase-change events (see
 * buildPhaseToStatus) move the version on, and the deployer takes over once the image is pushed.
 * A version left queued (the Lambda stopped between the two) is started again by the sweeper.
 */
export function createCodeBuildBuilder(options: CodeBuildBuilderOptions): Builder {
  const { client, projectName, store, bucket, repositoryUri } = options;
  const onError = options.onError ?? ((error: unknown, versionId: string) => console.error(`Starting the build of version ${versionId} failed`, error));
  const running = new Map<string, Promise<void>>();

  const environmentOf = (version: VersionRecord) =>
    Object.entries({
      VERSION_ID: version.id,
      BUNDLE_URI: `s3://${bucket}/${bundleKeyOf(version.id)}`,
      IMAGE_URI: `${repositoryUri}:${version.id}`,
      PYTHON_VERSION: version.pythonVersion,
      PYTHON_PACKAGES: version.pythonPackages.join(' '),
      SYSTEM_PACKAGES: version.systemPackages.join(' '),
      RUN_COMMANDS: encodeRunCommands(version.runCommands ?? []),
      CUDA_VERSION: version.cudaVersion ?? '',
      // The image's last step imports it (infra/buildspec.ts), as the local builder does.
      ENTRY_FILE: version.entrypoint.file,
      ENTRY_SYMBOL: version.entrypoint.symbol,
    }).map(([name, value]) => ({ name, value, type: 'PLAINTEXT' as const }));

  const start = async (versionId: string) => {
    const version = await store.versions.get(versionId);
    // Started already (or gone): a second enqueue of one version changes nothing.
    if (version?.buildStatus !== 'queued') return;
    try {
      // The token makes a repeated StartBuild within CodeBuild's window return the same build.
      await client.send(new StartBuildCommand({ projectName, idempotencyToken: versionId, environmentVariablesOverride: environmentOf(version) }));
    } catch (error) {
      await store.versions.transition(versionId, ['queued'], { buildStatus: 'error', buildError: `The build could not start: ${(error as Error).message}` });
      return;
    }
    // Timestamps are the events' to stamp (builtAt when the image is pushed, readyAt when serving).
    await store.versions.transition(versionId, ['queued'], { buildStatus: 'building' });
  };

  return {
    enqueue(versionId) {
      const already = running.get(versionId);
      if (already) return already;
      const started = start(versionId)
        .catch((error: unknown) => onError(error, versionId))
        .finally(() => running.delete(versionId));
      running.set(versionId, started);
      return started;
    },

    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },
  };
}

const FAILED_STATUSES = new Set(['FAILED', 'FAULT', 'TIMED_OUT', 'STOPPED']);

/**
 * The build state a CodeBuild phase-change event means: `phase` is the phase the build is in,
 * `status` its status. The buildspec builds the image in BUILD and pushes it to ECR in
 * POST_BUILD; a build that completes successfully leaves the version to the deployer. Null
 * for phases that change nothing (provisioning, downloading the source, ...).
 */
export function buildPhaseToStatus(phase: string, status: string): BuildStatus | null {
  if (FAILED_STATUSES.has(status)) return 'error';
  switch (phase) {
    case 'BUILD':
      return 'building';
    case 'POST_BUILD':
      return 'pushing';
    case 'COMPLETED':
      return status === 'SUCCEEDED' ? 'deploying' : null;
    default:
      return null;
  }
}

/** CodeBuild's phases, in the order a build goes through them. */
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
  'COMPLETED',
];

/**
 * The phase a build is in after a "Build Phase Change" event, which names the phase that just
 * completed: the next one has started (BUILD completing means POST_BUILD, the ECR push, runs).
 */
export function phaseStartedAfter(completedPhase: string): string {
  const index = PHASES.indexOf(completedPhase);
  return index === -1 || index === PHASES.length - 1 ? completedPhase : (PHASES[index + 1] as string);
}
