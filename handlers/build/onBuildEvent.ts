import { buildPhaseToStatus, phaseStartedAfter } from '../../shared/adapters/aws/codeBuildBuilder.js';
import { awsApp, logger } from '../lambdaApp.js';

/** The parts of CodeBuild's EventBridge events ("Build Phase Change", "Build State Change") that matter here. */
export interface CodeBuildEvent {
  detail: {
    'build-status'?: string;
    'current-phase'?: string;
    'completed-phase'?: string;
    'completed-phase-status'?: string;
    'additional-information'?: { environment?: { 'environment-variables'?: { name: string; value: string }[] } };
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
  if (to === 'error') {
    await services.buildProgress.advance(versionId, 'error', `The image build ended ${status} in its ${phase} phase; see the CodeBuild logs.`);
    return;
  }
  const moved = await services.buildProgress.advance(versionId, to);
  if (to !== 'deploying' || !moved) return;
  try {
    await compute.deployVersion(moved, variable('IMAGE_URI') ?? '');
    await services.buildProgress.advance(versionId, 'ready');
  } catch (error) {
    logger.error({ err: error, versionId }, 'deploy failed');
    await services.buildProgress.advance(versionId, 'error', `Deploying to ECS failed: ${(error as Error).message}`);
  }
}
