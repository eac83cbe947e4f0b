import { PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import type { AwsClients } from './awsClients.js';

/** When SQS's metrics of a queue reach CloudWatch, in AWS seconds (divided by the time scale here). */
export interface SqsMetricTimes {
  /** A minute's datapoint becomes visible this long after the minute it measures. */
  delaySeconds: number;
  /** A queue with no messages and no API call on it for this long is inactive: SQS stops publishing its metrics. */
  idleSeconds: number;
  /** Once an inactive queue is active again, its metrics resume this long after. */
  wakeSeconds: number;
}

/**
 * AWS's times. From the SQS Developer Guide, "Monitoring Amazon SQS queues using CloudWatch":
 * "CloudWatch considers a queue to be active for up to six hours if it contains any messages or
 * if any action accesses it." "When an SQS queue is inactive for more than six hours, the Amazon
 * SQS service is considered asleep and stops delivering metrics to the CloudWatch service." "A
 * delay of up to 15 minutes occurs in CloudWatch metrics when a queue is activated from an
 * inactive state." (the longest, here). The delay of an active queue's datapoints is not given
 * in the guide; SQS publishes once a minute, and a minute's datapoint is seen a minute later at
 * the soonest (a minute, here).
 */
export const AWS_SQS_METRIC_TIMES: SqsMetricTimes = { delaySeconds: 60, idleSeconds: 6 * 3600, wakeSeconds: 15 * 60 };

export interface SqsMetricsOptions {
  clients: Pick<AwsClients, 'sqs' | 'cloudWatch'>;
  /** Queues whose metrics SQS publishes (the deployment's, by name prefix). */
  queuePrefix: string;
  /** AWS's times divided by this: 60 makes a minute a second. */
  timeScale: number;
  times: SqsMetricTimes;
  now: () => number;
}

interface Sample {
  at: number;
  visible: number;
  notVisible: number;
}

interface QueueActivity {
  /** The last time it held a message or an API call named it. */
  lastActive: number;
  /** Since when SQS publishes nothing for it (inactive), or null. */
  asleepSince: number | null;
  /** Samples taken before this are not published: it is waking up. */
  publishFrom: number;
  /** Measured, not yet visible in CloudWatch. */
  pending: Sample[];
}

/**
 * What SQS does for CloudWatch, once per (scaled) minute: each active queue's
 * ApproximateNumberOfMessagesVisible and ...NotVisible, measured now and put in CloudWatch
 * (moto), stamped with the minute measured, once the delay has passed. An inactive queue gets
 * no datapoint at all, which alarms read through their TreatMissingData.
 */
export class SqsMetrics {
  private readonly queues = new Map<string, QueueActivity>();

  constructor(private readonly options: SqsMetricsOptions) {}

  /** An API call that names the queue (by URL or name), as the product's calls through the pass-through are: it keeps the queue active, or wakes it. */
  accessed(queue: string): void {
    const state = this.queues.get(nameOf(queue));
    if (state) this.active(state, this.options.now());
  }

  /** The real milliseconds of AWS seconds. */
  scaled(seconds: number): number {
    return (seconds * 1000) / this.options.timeScale;
  }

  async publish(): Promise<void> {
    const { sqs } = this.options.clients;
    const now = this.options.now();
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: this.options.queuePrefix }));
    for (const queueUrl of QueueUrls) {
      const name = nameOf(queueUrl);
      // The emulation's own reading, as SQS's collector's: no API call of a user, so it wakes nothing.
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      const visible = Number(Attributes.ApproximateNumberOfMessages ?? 0);
      const notVisible = Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
      // A new queue is active: creating it is an action on it.
      const state = this.queues.get(name) ?? { lastActive: now, asleepSince: null, publishFrom: now, pending: [] };
      this.queues.set(name, state);
      if (visible + notVisible + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0) > 0) this.active(state, now);
      if (this.measured(state, now)) state.pending.push({ at: now, visible, notVisible });
      await this.flush(name, state, now);
    }
  }

  /** A message in it or a call on it: an inactive queue wakes, measured again a wake delay after this first activity. */
  private active(state: QueueActivity, at: number): void {
    if (state.asleepSince !== null) {
      state.asleepSince = null;
      state.publishFrom = at + this.scaled(this.options.times.wakeSeconds);
    }
    state.lastActive = at;
  }

  /** Whether SQS measures the queue this minute: not once it has been idle for the idle time, nor while it wakes. */
  private measured(state: QueueActivity, now: number): boolean {
    if (state.asleepSince === null && now - state.lastActive >= this.scaled(this.options.times.idleSeconds)) state.asleepSince = now;
    return state.asleepSince === null && now >= state.publishFrom;
  }

  /** Puts the samples whose delay has passed; half a minute's slack, as timers fire a little early or late. */
  private async flush(name: string, state: QueueActivity, now: number): Promise<void> {
    const due = now - this.scaled(this.options.times.delaySeconds) + this.scaled(30);
    const ready = state.pending.filter((sample) => sample.at <= due);
    if (ready.length === 0) return;
    state.pending = state.pending.filter((sample) => sample.at > due);
    const dimensions = [{ Name: 'QueueName', Value: name }];
    await this.options.clients.cloudWatch.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SQS',
        MetricData: ready.flatMap((sample) => [
          { MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: dimensions, Timestamp: new Date(sample.at), Value: sample.visible },
          { MetricName: 'ApproximateNumberOfMessagesNotVisible', Dimensions: dimensions, Timestamp: new Date(sample.at), Value: sample.notVisible },
        ]),
      }),
    );
  }
}

const nameOf = (queue: string) => queue.split('/').pop() as string;
