import { describe, expect, it } from 'vitest';
import { actionsOf, resourcesOf, sluiceApp, type Statement } from './sluiceTemplates.js';

const { templates } = sluiceApp();
const everyTemplate = Object.entries(templates);

/** Every statement of every policy of the app, with where it is. */
function everyStatement(): { where: string; statement: Statement }[] {
  return everyTemplate.flatMap(([stack, template]) => [
    ...Object.entries(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(([id, policy]) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({ where: `${stack}/${id}`, statement })),
    ),
    ...Object.entries(resourcesOf(template, 'AWS::IAM::Role')).flatMap(([id, role]) =>
      ((role.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).flatMap((policy) => policy.PolicyDocument.Statement.map((statement) => ({ where: `${stack}/${id}`, statement }))),
    ),
  ]);
}

describe('IAM across the app', () => {
  it('names every action a role may take: no wildcard actions', () => {
    const statements = everyStatement();
    expect(statements.length).toBeGreaterThan(50);
    const wildcards = statements.flatMap(({ where, statement }) => actionsOf([statement]).filter((action) => action.includes('*')).map((action) => `${where}: ${action}`));
    expect(wildcards).toEqual([]);
  });

  it('attaches only the AWS managed policies Lambda logging and SSM access to instances need', () => {
    const managed = new Set(
      everyTemplate.flatMap(([, template]) =>
        Object.values(resourcesOf(template, 'AWS::IAM::Role')).flatMap((role) => ((role.Properties.ManagedPolicyArns ?? []) as unknown[]).map((arn) => JSON.stringify(arn).replace(/.*:iam::aws:policy\/([^"]+)".*/, '$1'))),
      ),
    );
    expect([...managed].sort()).toEqual(['AmazonSSMManagedInstanceCore', 'service-role/AWSLambdaBasicExecutionRole']);
  });
});
