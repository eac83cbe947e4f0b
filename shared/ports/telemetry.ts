import type { BuildStatus } from '../domain/buildStatus.js';
import type { VersionRecord } from '../domain/version.js';
import type { WebhookDelivery } from '../domain/webhookDelivery.js';
import type { JobEvent } from './jobEvents.js';

/** What a replica did: started, finished its setup, or ended (stopped by the agent, or on its own: a crash). */
export type ReplicaEvent =
  | { what: 'started' | 'ready'; versionId: string; replicaId: string; gpuIndex: number | null }
  | { what: 'setup_failed'; versionId: string; replicaId: string; error: string }
  | { what: 'exited' | 'crashed'; versionId: string; replicaId: string; exitCode: number | null; signal: string | null };

/** The moments an operator wants to see: the service's log lines and its metrics are made from them. */
export type OperationalEvent =
  | { kind: 'job'; event: JobEvent }
  | { kind: 'build'; version: VersionRecord; status: BuildStatus }
  | { kind: 'replica'; event: ReplicaEvent }
  | { kind: 'webhook'; delivery: WebhookDelivery; outcome: 'delivered' | 'retry' | 'failed'; status: number | null; error: string | null };

/** Takes each event as it happens; synchronous and never failing, so no caller waits on it. */
export interface Telemetry {
  record(event: OperationalEvent): void;
}

export const NO_TELEMETRY: Telemetry = { record: () => undefined };

/** Several consumers (the log, the metrics) as one. */
export function telemetryOf(...consumers: Telemetry[]): Telemetry {
  return { record: (event) => consumers.forEach((consumer) => consumer.record(event)) };
}
