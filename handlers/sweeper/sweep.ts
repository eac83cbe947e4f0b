import type { SettledService } from '../../shared/adapters/aws/taskScaling.js';
import { awsApp, logger } from '../lambdaApp.js';

export interface SweepSummary {
  buildsRestarted: string[];
  deliveriesRestarted: string[];
  jobsExpired: string[];
  /** Queued jobs whose message was lost (a push that died before sending it), sent again. */
  jobsSentAgain: string[];
  /** Queued jobs whose start_timeout passed before anyone took them: cancelled. */
  jobsPastStartDeadline: string[];
  /** Services set to the tasks their queue needs: raised for a backlog or buffer, lowered once idle. */
  servicesScaled: SettledService[];
  failures: number;
}

/**
 * Run every minute by an EventBridge schedule: picks up versions, deliveries and jobs that a
 * lost call left behind (shared/services/sweeper.ts), then sets each ready version's service
 * to the tasks its queue needs (taskScaling.ts), which is how services scale in. What it could
 * not do is logged and tried again at the next run.
 */
export async function handler(): Promise<SweepSummary> {
  const { services, store, compute } = awsApp();
  const report = await services.sweeper.sweep();
  for (const { item, error } of report.failures) logger.error({ err: error, item }, 'the sweeper could not pick this up; it tries again next minute');
  let servicesScaled: SettledService[] = [];
  let failures = report.failures.length;
  try {
    const settled = await compute.settle(await store.versions.listByBuildStatus(['ready']));
    servicesScaled = settled.scaled;
    failures += settled.failures.length;
    for (const { service, error } of settled.failures)
      logger.error({ err: error, service }, 'the sweeper could not scale this service; it tries again next minute');
  } catch (error) {
    failures += 1;
    logger.error({ err: error }, 'the sweeper could not scale the versions’ services; it tries again next minute');
  }
  const summary = {
    buildsRestarted: report.buildsRestarted,
    deliveriesRestarted: report.deliveriesRestarted,
    jobsExpired: report.jobsExpired,
    jobsSentAgain: report.jobsSentAgain,
    jobsPastStartDeadline: report.jobsPastStartDeadline,
    servicesScaled,
    failures,
  };
  if (summary.buildsRestarted.length + summary.deliveriesRestarted.length + summary.jobsExpired.length + summary.jobsSentAgain.length > 0)
    logger.warn(summary, 'the sweeper picked up work a lost call left behind');
  if (summary.jobsPastStartDeadline.length > 0)
    logger.info({ jobsPastStartDeadline: summary.jobsPastStartDeadline }, 'the sweeper cancelled jobs not started by their start_timeout');
  if (servicesScaled.length > 0) logger.info({ servicesScaled }, 'the sweeper scaled services to their queues');
  return summary;
}
