import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledge } from '../nag.js';
import { arns, type SluiceNames } from '../names.js';

export interface QueuesStackProps extends StackProps {
  names: SluiceNames;
}

/**
 * The job queues' dead-letter queue, `<prefix>dlq`.
 *
 * The per-version queues (`<prefix>v-<version id>`) are not here: the service creates one
 * when a version is deployed (the build-event Lambda, through the ECS compute adapter), with a
 * redrive policy to this DLQ, and a version's queue lives as long as the version. Access to
 * them is granted by name pattern, `<prefix>v-*` (see `versionQueuesArn` and infra/grants.ts):
 * the API's push route may send, worker tasks may consume, the deployer may create.
 */
export class QueuesStack extends Stack {
  readonly deadLetterQueue: Queue;
  /** Every version's queue, present and future. */
  readonly versionQueuesArn: string;

  constructor(scope: Construct, id: string, props: QueuesStackProps) {
    super(scope, id, props);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      queueName: props.names.deadLetterQueue,
      // A job message that failed its receives stays for inspection as long as SQS allows.
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledge(this.deadLetterQueue, [
      { id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue: the versions’ queues, created at deploy time, redrive to it.' },
    ]);
    this.versionQueuesArn = arns.queue(this, props.names.versionQueuePattern);
  }
}
