import { awsApp, logger } from '../lambdaApp.js';

export interface SweepSummary {
  buildsRestarted: string[];
  deliveriesRestarted: string[];
  jobsExpired: string[];
  failures: number;
}

/**
 * Run every minute by an EventBridge schedule: picks up versions, deliveries and jobs that a
 * lost call left behind (shared/services/sweeper.ts). What it could not pick up is logged and
 * tried again at the next run.
 */
export async function handler(): Promise<SweepSummary> {
  const report = await awsApp().services.sweeper.sweep();
  for (const { item, error } of report.failures) logger.error({ err: error, item }, 'the sweeper could not pick this up; it tries again next minute');
  const summary = {
    buildsRestarted: report.buildsRestarted,
    deliveriesRestarted: report.deliveriesRestarted,
    jobsExpired: report.jobsExpired,
    failures: report.failures.length,
  };
  if (summary.buildsRestarted.length + summary.deliveriesRestarted.length + summary.jobsExpired.length > 0)
    logger.warn(summary, 'the sweeper picked up work a lost call left behind');
  return summary;
}
