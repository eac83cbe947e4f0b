import type { WorkerCountsReader } from './workerCounts.js';

/** Where replicas run: child processes locally, ECS tasks on AWS. */
export interface Compute extends WorkerCountsReader {
  /** Stops the run of a job that was cancelled while processing; its replica is replaced. */
  stopJob(jobId: string): void;
}
