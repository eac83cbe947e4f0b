import { DescribeScalableTargetsCommand, type ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { UpdateServiceCommand, type ECSClient, type Service } from '@aws-sdk/client-ecs';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { wantedReplicas } from '../../domain/replicaBounds.js';
import type { VersionRecord } from '../../domain/version.js';
import { taskBounds } from './queueScaling.js';
import { serviceNameOf } from './taskStateChange.js';

export interface TaskScalingOptions {
  ecs: ECSClient;
  autoScaling: ApplicationAutoScalingClient;
  sqs: SQSClient;
  cluster: string;
  /** Batched DescribeServices (serviceDescriber.ts). */
  describe: (serviceName: string) => Promise<Service | null>;
  queueUrlOf: (versionId: string) => Promise<string>;
  /** Epoch milliseconds; Date.now unless told. */
  now?: () => number;
}

export interface TaskScaling {
  /** A job was queued: a service at zero tasks gets one now, without waiting for a metric alarm. */
  wake(versionId: string): Promise<void>;
  /** Every minute (the sweeper): each ready version's service set to the tasks its queue needs now; what it did, by service. */
  settle(versions: readonly VersionRecord[]): Promise<SettleReport>;
}

export interface SettledService {
  service: string;
  from: number;
  to: number;
}

/** What a settle did, and the services it could not settle (each stands alone: the next sweep tries again). */
export interface SettleReport {
  scaled: SettledService[];
  failures: { service: string; error: unknown }[];
}

/** How long a version seen with tasks wanted is not described again when a job is queued. */
const AWAKE_FOR_MS = 10_000;

/** The tasks a version wants for a backlog (jobs waiting or running): its replicas' need and buffer over `split`, within its task bounds. */
export function tasksWanted(version: VersionRecord, backlog: number): number {
  const { min, max } = taskBounds(version);
  return Math.min(max, Math.max(min, Math.ceil(wantedReplicas(version, backlog, Number.POSITIVE_INFINITY) / version.split)));
}

/**
 * Scaling that does not wait for CloudWatch: SQS's metrics reach an alarm one to three minutes
 * late (fifteen after a long idle), so a job queued on an idle version wakes its service itself,
 * and the sweeper sets every awake service to its queue's depth read from SQS directly. Lowering
 * is safe at once: each task protects itself while busy and for its scale-down window after
 * (taskProtection.ts), and ECS stops only unprotected tasks. The queue's alarm still scales out
 * between sweeps; its scale-in is suspended (queueScaling.ts), so nothing lowers a service but this.
 */
export function createTaskScaling(options: TaskScalingOptions): TaskScaling {
  const { ecs, cluster } = options;
  const now = options.now ?? Date.now;
  const awake = new Map<string, number>();

  const setDesired = (service: string, desiredCount: number) => ecs.send(new UpdateServiceCommand({ cluster, service, desiredCount }));

  /** A version held at zero (stopQueueScaling: its tasks cannot start) has a maximum of 0. */
  const held = async (service: string) => {
    const { ScalableTargets = [] } = await options.autoScaling.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'ecs', ResourceIds: [`service/${cluster}/${service}`] }),
    );
    return (ScalableTargets[0]?.MaxCapacity ?? 0) === 0;
  };

  const backlogOf = async (versionId: string) => {
    const { Attributes = {} } = await options.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: await options.queueUrlOf(versionId),
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
  };

  const settleOne = async (version: VersionRecord, service: Service): Promise<SettledService | null> => {
    const desired = service.desiredCount ?? 0;
    const running = service.runningCount ?? 0;
    const pending = service.pendingCount ?? 0;
    // Asleep: the next job queued wakes it.
    if (desired + running + pending === 0) return null;
    const wanted = tasksWanted(version, await backlogOf(version.id));
    // Lowered only once nothing is starting: a task started for a job has not taken it yet.
    const settledDown = pending === 0 && running >= desired;
    if (wanted > desired || (wanted < desired && settledDown)) {
      await setDesired(service.serviceName as string, wanted);
      return { service: service.serviceName as string, from: desired, to: wanted };
    }
    return null;
  };

  return {
    async wake(versionId) {
      const seen = awake.get(versionId);
      if (seen !== undefined && now() - seen < AWAKE_FOR_MS) return;
      const name = serviceNameOf(versionId);
      const service = await options.describe(name);
      if (!service) return;
      if ((service.desiredCount ?? 0) === 0) {
        if (await held(name)) return;
        await setDesired(name, 1);
      }
      awake.set(versionId, now());
    },

    async settle(versions) {
      const report: SettleReport = { scaled: [], failures: [] };
      const ready = versions.filter((version) => version.buildStatus === 'ready');
      const services = await Promise.all(ready.map((version) => options.describe(serviceNameOf(version.id)).catch((error: unknown) => error as Error)));
      for (const [index, version] of ready.entries()) {
        const service = services[index];
        const name = serviceNameOf(version.id);
        try {
          if (service instanceof Error) throw service;
          const scaled = service ? await settleOne(version, service) : null;
          if (scaled) report.scaled.push(scaled);
        } catch (error) {
          report.failures.push({ service: name, error });
        }
      }
      return report;
    },
  };
}
