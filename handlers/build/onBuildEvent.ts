import { buildPhaseToStatus, phaseStartedAfter } from '../../shared/adapters/aws/codeBuildBuilder.js';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { readBuildLog, type BuildLogLocation } from '../../shared/adapters/aws/codeBuildLogs.js';
import { awsApp, logger } from '../lambdaApp.js';

const logsClient = new CloudWatchLogsClient({});

/** The parts of CodeBuild's EventBridge events ("Build Phase Change", "Build State Change") that matter here. */
export interface CodeBuildEvent {
  detail: {
    'build-status'?: string;
    'current-phase'?: string;
    'completed-phase'?: string;
    'completed-phase-status'?: string;
    'additional-information'?: { environment?: { 'environment-variables'?: { name: string; value: string }[] }; logs?: BuildLogLocation };
  };
}

/**
 * Follows a version's image build: CodeBuild's phases move it building -> pushing; success
 * moves it to deploying, when this handler creates its queue, task definition, ECS service and
 * scaling, then ready. A failure ends it in error (and the jobs that waited for it).
 */
export async function handler(event: CodeBuildEvent): Promise<void> {
  const variables = event.detail['additional-information']?.environment?.['environment-variables'] ?? [];
  const variable = (name: string) => variables.find((entry) => entry.name === name)?.value;
  const versionId = variable('VERSION_ID');
  if (!versionId) return;
  const completed = event.detail['completed-phase'];
  const phase = completed === undefined ? (event.detail['current-phase'] ?? '') : phaseStartedAfter(completed);
  const status = event.detail['build-status'] ?? event.detail['completed-phase-status'] ?? '';
  const to = buildPhaseToStatus(phase, status);
  if (!to) return;
  const { services, compute } = awsApp();
  // The build is over: its log goes to the version's, for `sluice deploy` to show.
  const lines =
    event.detail['build-status'] === 'SUCCEEDED' || event.detail['build-status'] === 'FAILED'
      ? await readBuildLog(logsClient, event.detail['additional-information']?.logs).catch((error: unknown) => [
          `(the build log could not be read: ${(error as Error).message})`,
        ])
      : [];
  if (to === 'error') {
    await services.buildProgress.advance(versionId, 'error', `The image build ended ${status} in its ${phase} phase.`, lines);
    return;
  }
  const moved = await services.buildProgress.advance(versionId, to, undefined, lines);
  if (to !== 'deploying' || !moved) return;
  try {
    await compute.deployVersion(moved, variable('IMAGE_URI') ?? '');
    await services.buildProgress.advance(versionId, 'ready');
  } catch (error) {
    logger.error({ err: error, versionId }, 'deploy failed');
    await services.buildProgress.advance(versionId, 'error', `Deploying to ECS failed: ${(error as Error).message}`);
  }
}
