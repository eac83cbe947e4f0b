import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { sluiceNames } from '../../infra/names.js';
import { QueuesStack } from '../../infra/stacks/queuesStack.js';
import { PREFIX, resourcesOf } from './sluiceTemplates.js';

// The stack needs no Lambda code: built alone, without the rest of the app.
let stack: QueuesStack;
let template: Template;

beforeAll(() => {
  stack = new QueuesStack(new App(), 'SluiceQueues', { names: sluiceNames(PREFIX) });
  template = Template.fromStack(stack);
});

describe('QueuesStack', () => {
  it('creates the dead-letter queue under the name the service looks up, <prefix>dlq', () => {
    template.resourceCountIs('AWS::SQS::Queue', 1);
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: `${PREFIX}dlq` });
  });

  it('keeps dead letters 14 days, encrypted, and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'));
    expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
  });

  it('creates no per-version queue: the service creates them at deploy time, granted by the <prefix>v-* pattern', () => {
    expect(stack.resolve(stack.versionQueuesArn)).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sqs:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${PREFIX}v-*`]],
    });
  });
});
