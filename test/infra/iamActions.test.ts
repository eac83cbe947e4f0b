import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  functionStatements,
  refOf,
  resourcesIn,
  resourcesOf,
  routeFunctionIdIn,
  sluiceApp,
  tablesNamed,
  type Resource,
  type Statement,
} from './sluiceTemplates.js';

const { templates } = sluiceApp();
const everyTemplate = Object.entries(templates);

/** Every statement of every policy of the app, with where it is. */
function everyStatement(): { where: string; statement: Statement }[] {
  return everyTemplate.flatMap(([stack, template]) => [
    ...Object.entries(resourcesOf(template, 'AWS::IAM::Policy')).flatMap(([id, policy]) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({ where: `${stack}/${id}`, statement })),
    ),
    ...Object.entries(resourcesOf(template, 'AWS::IAM::Role')).flatMap(([id, role]) =>
      ((role.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).flatMap((policy) =>
        policy.PolicyDocument.Statement.map((statement) => ({ where: `${stack}/${id}`, statement })),
      ),
    ),
  ]);
}

describe('IAM across the app', () => {
  it('names every action a role may take: no wildcard actions', () => {
    const statements = everyStatement();
    expect(statements.length).toBeGreaterThan(50);
    const wildcards = statements.flatMap(({ where, statement }) =>
      actionsOf([statement])
        .filter((action) => action.includes('*'))
        .map((action) => `${where}: ${action}`),
    );
    expect(wildcards).toEqual([]);
  });

  it('attaches only the AWS managed policy SSM access to instances needs (Lambda roles write their own log group inline)', () => {
    const managed = new Set(
      everyTemplate.flatMap(([, template]) =>
        Object.values(resourcesOf(template, 'AWS::IAM::Role')).flatMap((role) =>
          ((role.Properties.ManagedPolicyArns ?? []) as unknown[]).map((arn) => JSON.stringify(arn).replace(/.*:iam::aws:policy\/([^"]+)".*/, '$1')),
        ),
      ),
    );
    expect([...managed].sort()).toEqual(['AmazonSSMManagedInstanceCore']);
  });

  it('lets each Lambda write its own log group only', () => {
    for (const template of Object.values(templates)) {
      for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) {
        const role = resourcesOf(template, 'AWS::IAM::Role')[refOf(fn.Properties.Role)] as Resource;
        const statements = (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap((policy) => policy.PolicyDocument.Statement);
        expect(statements).toEqual([
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: { 'Fn::GetAtt': [refOf(fn.Properties.LoggingConfig.LogGroup), 'Arn'] },
          },
        ]);
      }
    }
  });

  it('names each DynamoDB index it grants (no index/*), and every index of a granted table', () => {
    const resources = everyStatement().flatMap(({ statement }) =>
      actionsOf([statement]).some((action) => action.startsWith('dynamodb:')) ? resourcesIn(statement) : [],
    );
    const text = JSON.stringify(resources);
    expect(text).not.toContain('/index/*');
    expect(text).toMatch(/\/index\/[a-z_]+/);
  });
});

describe('IAM of the API key routes (GET, POST /v2/keys, DELETE /v2/keys/{key_id})', () => {
  const statementsOf = (route: string) => functionStatements(templates.api, routeFunctionIdIn(templates.api, route));
  const writes = (statements: Statement[]) => actionsOf(statements).filter((action) => /Put|Update|Delete|Write/.test(action));

  it('lets listing keys read the api_keys and organizations tables, and write nothing', () => {
    const statements = statementsOf('listApiKeys');
    expect(tablesNamed(statements)).toEqual(new Set(['organizations', 'api_keys']));
    expect(actionsOf(statements).every((action) => action.startsWith('dynamodb:'))).toBe(true);
    expect(writes(statements)).toEqual([]);
  });

  it('lets creating and revoking keys write the api_keys table only: no organization, no other table, no other service', () => {
    for (const route of ['createApiKey', 'revokeApiKey']) {
      const statements = statementsOf(route);
      expect([route, tablesNamed(statements)]).toEqual([route, new Set(['organizations', 'api_keys'])]);
      expect([route, tablesNamed(statements, 'dynamodb:UpdateItem')]).toEqual([route, new Set(['api_keys'])]);
      expect([route, actionsOf(statements).filter((action) => !action.startsWith('dynamodb:'))]).toEqual([route, []]);
    }
  });
});
