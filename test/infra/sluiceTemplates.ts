import { App, Stack, type CfnElement } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { createSluiceStacks, type SluiceStacks } from '../../infra/sluiceApp.js';
import { ROUTES } from '../../shared/http/routeTable.js';

/** The prefix the test deployment's names start with. */
export const PREFIX = 'test-';

export type StackName = Exclude<keyof SluiceStacks, 'names'>;

let stacks: SluiceStacks | undefined;
let templates: Record<StackName, Template> | undefined;

/** The whole app, built and synthesized once per test file (each file runs in its own process). */
export function sluiceApp(): { stacks: SluiceStacks; templates: Record<StackName, Template> } {
  if (!stacks || !templates) {
    const app = new App({ context: { '@aws-cdk/core:defaultCrossStackReferences': 'strong' } });
    const created = createSluiceStacks(app, { prefix: PREFIX });
    const assembly = app.synth();
    const names: StackName[] = ['data', 'queues', 'compute', 'webhooks', 'api', 'build'];
    templates = Object.fromEntries(names.map((name) => [name, Template.fromJSON(assembly.getStackArtifact(created[name].artifactId).template)])) as Record<
      StackName,
      Template
    >;
    stacks = created;
  }
  return { stacks, templates };
}

export interface Resource {
  Type: string;
  Properties: Record<string, any>;
  [key: string]: unknown;
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

export const resourcesOf = (template: Template, type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;

/** The logical id of each Lambda function whose environment has `name` = `value`. */
export function functionsWithEnv(template: Template, name: string, value: string): [string, Resource][] {
  return Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Environment?.Variables?.[name] === value);
}

export function onlyFunctionWithEnv(template: Template, name: string, value: string): [string, Resource] {
  const found = functionsWithEnv(template, name, value);
  if (found.length !== 1) throw new Error(`expected one function with ${name}=${value}, found ${found.length}`);
  return found[0] as [string, Resource];
}

/** The one Lambda function whose handler is `handler` (`<entry>.handler`). */
export function onlyFunctionWithHandler(template: Template, handler: string): [string, Resource] {
  const found = Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Handler === handler);
  if (found.length !== 1) throw new Error(`expected one function with handler ${handler}, found ${found.length}`);
  return found[0] as [string, Resource];
}

/** The statements of every policy attached to the role (by logical id). */
export function roleStatements(template: Template, roleId: string): Statement[] {
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

export function functionStatements(template: Template, functionId: string): Statement[] {
  const role = resourcesOf(template, 'AWS::Lambda::Function')[functionId]?.Properties.Role as { 'Fn::GetAtt': [string, string] };
  return roleStatements(template, role['Fn::GetAtt'][0]);
}

export const actionsOf = (statements: Statement[]): string[] => statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
export const resourcesIn = (statement: Statement): unknown[] => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]);

/** The table names (without prefix) that statements with these actions name, from their ARNs. */
export function tablesNamed(statements: Statement[], action?: string): Set<string> {
  const names = new Set<string>();
  for (const statement of statements) {
    if (action && !actionsOf([statement]).includes(action)) continue;
    for (const match of JSON.stringify(statement.Resource).matchAll(new RegExp(`:table/${PREFIX}([a-z_]+)`, 'g'))) names.add(match[1] as string);
  }
  return names;
}

/** A construct's CloudFormation logical id (its default child's). */
export function logicalIdOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** A `Ref` or `Fn::GetAtt`'s logical id. */
export const refOf = (value: unknown): string => (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];

/** The function the API stack's route `METHOD path` invokes, with its logical id. */
export function routeFunctionIn(api: Template, routeKey: string): [string, Resource] {
  const routes = Object.values(resourcesOf(api, 'AWS::ApiGatewayV2::Route')).filter((route) => route.Properties.RouteKey === routeKey);
  if (routes.length !== 1) throw new Error(`${routes.length} API routes have the key "${routeKey}"`);
  const target = (routes[0] as Resource).Properties.Target as { 'Fn::Join': [string, unknown[]] };
  const integration = resourcesOf(api, 'AWS::ApiGatewayV2::Integration')[refOf(target['Fn::Join'][1][1])] as Resource;
  const id = refOf(integration.Properties.IntegrationUri);
  return [id, resourcesOf(api, 'AWS::Lambda::Function')[id] as Resource];
}

/** The logical id of the function serving a route of the table (by its name) through the API. */
export function routeFunctionIdIn(api: Template, name: string): string {
  const route = ROUTES.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`no route ${name}`);
  return routeFunctionIn(api, `${route.method} ${route.path}`)[0];
}

/** The capacity provider of a machine type in a compute stack's template, its Auto Scaling group and the group's launch template, with their logical ids. */
export function capacityOf(template: Template, machineType: string): { provider: Resource; group: Resource; groupId: string; launchTemplate: Resource } {
  const providers = Object.values(resourcesOf(template, 'AWS::ECS::CapacityProvider')).filter(
    (provider) => provider.Properties.Name === `${PREFIX}${machineType}`,
  );
  if (providers.length !== 1) throw new Error(`${providers.length} capacity providers are named ${PREFIX}${machineType}`);
  const provider = providers[0] as Resource;
  const groupId = refOf(provider.Properties.AutoScalingGroupProvider.AutoScalingGroupArn);
  const group = resourcesOf(template, 'AWS::AutoScaling::AutoScalingGroup')[groupId] as Resource;
  const launchTemplate = resourcesOf(template, 'AWS::EC2::LaunchTemplate')[refOf(group.Properties.LaunchTemplate.LaunchTemplateId)] as Resource;
  return { provider, group, groupId, launchTemplate };
}
