import type { MachineAvailability } from '../domain/machineAvailability.js';
import type { VersionRecord } from '../domain/version.js';
import type { WorkerCountsReader } from './workerCounts.js';

/** Where replicas run: child processes locally, ECS tasks on AWS. */
export interface Compute extends WorkerCountsReader {
  /** Stops the run of a job that was cancelled while processing; its replica is replaced. */
  stopJob(jobId: string): void;
  /** The version's replica bounds were edited: scale between the new ones, without a redeploy. */
  applyReplicaBounds(version: VersionRecord): Promise<void>;
  /** The machine types this deployment can run replicas on. */
  machineTypes(): Promise<MachineAvailability[]>;
}
