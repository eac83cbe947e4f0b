import { describe, expect, it } from 'vitest';
import { App, Aspects } from 'aws-cdk-lib/core';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createSluiceStacks } from '../../infra/sluiceApp.js';
import { PREFIX, type StackName } from './sluiceTemplates.js';

/**
 * cdk-nag's AwsSolutions rules over the whole app: every finding is fixed in its construct or
 * acknowledged next to it with its reason (infra/nag.ts). A rule that cannot run on a resource
 * (CdkNagValidationFailure) counts too.
 */
const app = new App({ context: { '@aws-cdk/core:defaultCrossStackReferences': 'strong' } });
const stacks = createSluiceStacks(app, { prefix: PREFIX });
Aspects.of(app).add(new AwsSolutionsChecks());
app.synth();

const NAG_FINDING = Match.stringLikeRegexp('^(AwsSolutions-|CdkNagValidationFailure)');
const STACKS: StackName[] = ['data', 'queues', 'compute', 'webhooks', 'api', 'build'];

describe('cdk-nag AwsSolutions checks', () => {
  it.each(STACKS.map((name) => [name]))('leaves no unacknowledged error or warning in the %s stack', (name) => {
    const annotations = Annotations.fromStack(stacks[name]);
    const findings = [...annotations.findError('*', NAG_FINDING), ...annotations.findWarning('*', NAG_FINDING)].map(
      (finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`,
    );
    expect(findings, findings.join('\n')).toEqual([]);
  });
});
