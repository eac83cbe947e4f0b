import { beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARD_BUILD, REPOSITORY_ROOT, bundleLambdaCode } from '../../infra/bundle.js';
import { sluiceNames } from '../../infra/names.js';
import { parseCorsContext } from '../../infra/sluiceApp.js';
import { corsPolicy } from '../../shared/http/cors.js';
import { TABLES, type TableId } from '../../shared/adapters/aws/dynamodb/tables.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { bucketAccess, routePermissions } from '../../infra/routePermissions.js';
import { API_AWAIT_TIMEOUT_S, ApiStack, DASHBOARD_PATHS, DEPLOY_MEMORY_MB, LONG_AWAIT_TIMEOUT_S } from '../../infra/stacks/apiStack.js';
import {
  PREFIX,
  actionsOf,
  functionStatements,
  refOf,
  resourcesIn,
  resourcesOf,
  routeFunctionIdIn,
  routeFunctionIn,
  sluiceApp,
  tablesNamed,
  type Resource,
  type StackName,
} from './sluiceTemplates.js';

let api: Template;
let templates: Record<StackName, Template>;

beforeAll(() => {
  templates = sluiceApp().templates;
  api = templates.api;
});

const suffixes = (ids: TableId[]) => new Set(ids.map((id) => TABLES[id].nameSuffix));
const routeFunctionWithId = (routeKey: string): [string, Resource] => routeFunctionIn(api, routeKey);
const routeFunction = (routeKey: string): Resource => routeFunctionWithId(routeKey)[1];
const routeFunctionId = (name: string): string => routeFunctionIdIn(api, name);

describe('ApiStack', () => {
  it("creates exactly one API route per entry of the route table, and the dashboard's", () => {
    api.resourceCountIs('AWS::ApiGatewayV2::Route', ROUTES.length + DASHBOARD_PATHS.length);
  });

  describe('the dashboard', () => {
    it('serves GET /, the files beside the page and /assets/ from one Lambda of the shared bundle, which may touch no table, bucket or queue', () => {
      const [id, fn] = routeFunctionWithId('GET /');
      expect(fn.Properties).toMatchObject({ Handler: 'dashboard.handler', Runtime: 'nodejs24.x' });
      for (const path of ['/{file}', '/assets/{file}']) expect(routeFunctionWithId(`GET ${path}`)[0]).toBe(id);
      expect(functionStatements(api, id)).toEqual([]);
    });

    it('shadows no route of the table: each path is under /v2/ or fixed (API Gateway prefers a fixed path to /{file})', () => {
      for (const route of ROUTES) expect(route.path.startsWith('/v2/') || !route.path.includes('{')).toBe(true);
    });

    it('carries the built dashboard in the bundle, as dashboard/', () => {
      expect(existsSync(join(bundleLambdaCode(), 'dashboard', 'index.html'))).toBe(existsSync(join(REPOSITORY_ROOT, DASHBOARD_BUILD, 'index.html')));
    });

    it('outputs the dashboard URL', () => {
      expect(api.toJSON().Outputs.DashboardUrl.Value).toEqual({
        'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^HttpApi/), 'ApiEndpoint'] }, '/']],
      });
    });
  });

  describe.each(ROUTES.map((route) => [route.name, route] as const))('the %s route', (name, route) => {
    it('has the route key "METHOD path" of the route table, integrated with a Lambda whose SLUICE_ROUTE is the route name', () => {
      const fn = routeFunction(`${route.method} ${route.path}`);
      expect(fn.Properties.Environment.Variables.SLUICE_ROUTE).toBe(name);
    });

    it('runs the shared bundle on Node.js 24 with 512 MB (a deploy, which reads its bundle through, a vCPU), a 29 s timeout and the service environment', () => {
      const fn = routeFunction(`${route.method} ${route.path}`).Properties;
      expect(fn).toMatchObject({ Runtime: 'nodejs24.x', Handler: 'route.handler', MemorySize: name === 'deployVersion' ? DEPLOY_MEMORY_MB : 512, Timeout: 29 });
      expect(Object.keys(fn.Environment.Variables)).toEqual(
        expect.arrayContaining([
          'SLUICE_MODE',
          'SLUICE_TABLE_PREFIX',
          'SLUICE_BUCKET',
          'SLUICE_STATE_MACHINE_ARN',
          'SLUICE_CODEBUILD_PROJECT',
          'SLUICE_REPOSITORY_URI',
          'SLUICE_CLUSTER',
          'SLUICE_CAPACITY_PROVIDERS',
        ]),
      );
      expect(fn.Environment.Variables).toMatchObject({
        SLUICE_MODE: 'aws',
        SLUICE_TABLE_PREFIX: PREFIX,
        SLUICE_CLUSTER: `${PREFIX}cluster`,
        SLUICE_CODEBUILD_PROJECT: `${PREFIX}image-build`,
      });
    });

    it('may touch exactly the tables its permissions name, writing only those it may write', () => {
      const statements = functionStatements(api, routeFunctionId(name));
      const expected = Object.entries(routePermissions(name).tables ?? {}) as [TableId, string][];
      expect(tablesNamed(statements)).toEqual(suffixes(expected.map(([table]) => table)));
      expect(tablesNamed(statements, 'dynamodb:PutItem')).toEqual(suffixes(expected.filter(([, access]) => access === 'readWrite').map(([table]) => table)));
    });

    it('has SQS, Step Functions, CodeBuild and ECS actions only where its permissions say so', () => {
      const actions = actionsOf(functionStatements(api, routeFunctionId(name)));
      const permissions = routePermissions(name);
      expect(actions.some((action) => action.startsWith('sqs:'))).toBe((permissions.queues ?? []).length > 0);
      expect(actions.some((action) => action.startsWith('states:'))).toBe(Boolean(permissions.startDeliveries));
      expect(actions.some((action) => action.startsWith('codebuild:'))).toBe(Boolean(permissions.startBuilds));
      expect(actions.some((action) => action.startsWith('ecs:'))).toBe((permissions.ecs ?? []).length > 0);
      const bucket = bucketAccess(permissions);
      expect(actions.some((action) => action.startsWith('s3:'))).toBe(bucket.read.length + bucket.write.length > 0);
      expect(actions.some((action) => action.startsWith('iam:'))).toBe(false);
      expect(actions.some((action) => action.startsWith('application-autoscaling:') || action.startsWith('cloudwatch:'))).toBe(
        permissions.ecs?.some((use) => use === 'scale' || use === 'wake') ?? false,
      );
    });
  });

  it('lets getOrganization read the organizations and api_keys tables and nothing else', () => {
    const statements = functionStatements(api, routeFunctionId('getOrganization'));
    expect(tablesNamed(statements)).toEqual(new Set(['organizations', 'api_keys']));
    expect(actionsOf(statements).every((action) => action.startsWith('dynamodb:') && !/Put|Update|Delete|Write/.test(action))).toBe(true);
  });

  it('lets pushJob send to the versions’ queues (test-v-*) and wake an idle version’s service in its cluster, changing nothing else in ECS', () => {
    const statements = functionStatements(api, routeFunctionId('pushJob'));
    const send = statements.filter((statement) => actionsOf([statement]).includes('sqs:SendMessage'));
    expect(send).toHaveLength(1);
    expect(JSON.stringify(send[0]?.Resource)).toContain(`:${PREFIX}v-*`);
    const scaling = actionsOf(statements)
      .filter((action) => /^(application-autoscaling|cloudwatch|ecs|iam):/.test(action))
      .sort();
    expect(scaling).toEqual(['application-autoscaling:DescribeScalableTargets', 'ecs:DescribeServices', 'ecs:UpdateService']);
    const update = statements.find((statement) => actionsOf([statement]).includes('ecs:UpdateService'));
    expect(JSON.stringify(update?.Resource)).toContain(`service/${PREFIX}cluster/v-*`);
    expect(JSON.stringify(update?.Condition)).toContain('ecs:cluster');
  });

  it('lets editVersion register scaling and put (or remove an older deployment’s) queue alarms only, passing no role and changing no service', () => {
    const statements = functionStatements(api, routeFunctionId('editVersion'));
    const scaling = actionsOf(statements)
      .filter((action) => /^(application-autoscaling|cloudwatch|ecs|iam):/.test(action))
      .sort();
    expect(scaling).toEqual([
      'application-autoscaling:DeleteScalingPolicy',
      'application-autoscaling:DescribeScalingPolicies',
      'application-autoscaling:PutScalingPolicy',
      'application-autoscaling:RegisterScalableTarget',
      'cloudwatch:DeleteAlarms',
      'cloudwatch:DescribeAlarms',
      'cloudwatch:PutMetricAlarm',
      'ecs:DescribeServices',
    ]);
    const alarms = statements.find((statement) => actionsOf([statement]).includes('cloudwatch:PutMetricAlarm'));
    expect(JSON.stringify(alarms?.Resource)).toContain(`:alarm:${PREFIX}v-*`);
  });

  it('lets deployVersion write bundles/ only and start builds of the image project only', () => {
    const statements = functionStatements(api, routeFunctionId('deployVersion'));
    const put = statements.find((statement) => actionsOf([statement]).includes('s3:PutObject'));
    expect(JSON.stringify(put?.Resource)).toMatch(/\/bundles\/\*"/);
    expect(JSON.stringify(put?.Resource)).not.toContain('files/');
    const build = statements.find((statement) => actionsOf([statement]).includes('codebuild:StartBuild'));
    expect(JSON.stringify(build?.Resource)).toContain(`:project/${PREFIX}image-build`);
  });

  it('lets createUpload (which signs upload URLs with its role) put objects under uploads/ only, and touch no table beyond authentication', () => {
    const statements = functionStatements(api, routeFunctionId('createUpload'));
    const s3 = statements.filter((statement) => actionsOf([statement]).some((action) => action.startsWith('s3:')));
    expect(s3.flatMap((statement) => actionsOf([statement]))).toEqual(['s3:PutObject', 's3:AbortMultipartUpload']);
    expect(JSON.stringify(s3[0]?.Resource)).toMatch(/\/uploads\/\*"/);
    expect(tablesNamed(statements)).toEqual(new Set(['organizations', 'api_keys']));
  });

  it('lets deployVersion read uploads/ (the size, and the copy source) but write none of it', () => {
    const statements = functionStatements(api, routeFunctionId('deployVersion'));
    const get = statements.find((statement) => actionsOf([statement]).includes('s3:GetObject'));
    expect(JSON.stringify(get?.Resource)).toMatch(/\/uploads\/\*"/);
    const put = statements.find((statement) => actionsOf([statement]).includes('s3:PutObject'));
    expect(JSON.stringify(put?.Resource)).not.toContain('uploads/');
  });

  it('gives no role of any stack a "*" resource for a DynamoDB, S3 or SQS action', () => {
    for (const template of Object.values(templates)) {
      for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
        for (const statement of policy.Properties.PolicyDocument.Statement) {
          const data = actionsOf([statement]).filter((action) => /^(dynamodb|s3|sqs):/.test(action));
          if (data.length > 0) expect(resourcesIn(statement), `${data.join(',')}`).not.toContain('*');
        }
      }
    }
  });

  describe('await', () => {
    it('serves the await route a second way: a function URL without IAM auth on a 900 s function that waits 600 s', () => {
      const urls = Object.values(resourcesOf(api, 'AWS::Lambda::Url'));
      expect(urls).toHaveLength(1);
      expect(urls[0]?.Properties.AuthType).toBe('NONE');
      const fn = resourcesOf(api, 'AWS::Lambda::Function')[refOf(urls[0]?.Properties.TargetFunctionArn)] as Resource;
      expect(fn.Properties.Timeout).toBe(900);
      expect(fn.Properties.Handler).toBe('route.handler');
      expect(fn.Properties.Environment.Variables).toMatchObject({ SLUICE_ROUTE: 'awaitJob', SLUICE_AWAIT_TIMEOUT_S: String(LONG_AWAIT_TIMEOUT_S) });
    });

    it('lets the API Gateway await route answer 408 itself before the 30 s integration cut', () => {
      const awaitRoute = ROUTES.find((route) => route.name === 'awaitJob');
      const fn = routeFunction(`${awaitRoute?.method} ${awaitRoute?.path}`);
      expect(fn.Properties.Environment.Variables.SLUICE_AWAIT_TIMEOUT_S).toBe(String(API_AWAIT_TIMEOUT_S));
      expect(API_AWAIT_TIMEOUT_S).toBeLessThan(fn.Properties.Timeout);
      expect(fn.Properties.Timeout).toBeLessThan(30);
    });

    it('gives the long await function the same permissions as the await route', () => {
      const [longId] = Object.entries(resourcesOf(api, 'AWS::Lambda::Function')).find(([, fn]) => fn.Properties.Timeout === 900) as [string, Resource];
      expect(functionStatements(api, longId)).toEqual(functionStatements(api, routeFunctionId('awaitJob')));
    });
  });

  describe('browsers (CORS)', () => {
    it('has API Gateway answer preflights for any origin by default: every method served, X-API-Key and Content-Type, Retry-After readable, a day’s max age', () => {
      const [httpApi] = Object.values(resourcesOf(api, 'AWS::ApiGatewayV2::Api'));
      expect(httpApi?.Properties.CorsConfiguration).toEqual({
        AllowOrigins: ['*'],
        AllowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
        AllowHeaders: expect.arrayContaining(['X-API-Key', 'Content-Type']),
        ExposeHeaders: expect.arrayContaining(['Retry-After']),
        MaxAge: 86_400,
      });
    });

    it('gives the await function URL the same origins', () => {
      const [url] = Object.values(resourcesOf(api, 'AWS::Lambda::Url'));
      expect(url?.Properties.Cors).toMatchObject({ AllowOrigins: ['*'], AllowMethods: ['GET'], AllowHeaders: expect.arrayContaining(['X-API-Key']) });
    });

    it('allows only the origins the sluice:corsOrigins context names, and refuses one that is not an origin', () => {
      expect(parseCorsContext('https://app.example.com, http://localhost:3000')).toEqual(['https://app.example.com', 'http://localhost:3000']);
      expect(parseCorsContext(undefined)).toBeUndefined();
      expect(() => parseCorsContext('app.example.com')).toThrow(/sluice:corsOrigins/);
      const app = new App();
      const stack = new ApiStack(app, 'Api', {
        names: sluiceNames('t-'),
        routes: ROUTES,
        codeFolder: bundleLambdaCode(),
        cors: corsPolicy(['https://app.example.com']),
      });
      const [httpApi] = Object.values(resourcesOf(Template.fromStack(stack), 'AWS::ApiGatewayV2::Api'));
      expect(httpApi?.Properties.CorsConfiguration.AllowOrigins).toEqual(['https://app.example.com']);
    });
  });

  it('outputs the API URL and the await function URL', () => {
    const outputs = api.toJSON().Outputs;
    expect(outputs.ApiUrl.Value).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^HttpApi/), 'ApiEndpoint'] });
    expect(outputs.AwaitFunctionUrl.Value).toEqual({ 'Fn::GetAtt': [expect.any(String), 'FunctionUrl'] });
  });

  it('gives its URL to the build-event Lambda, which hands it to the workers (file output URLs)', () => {
    const buildEvents = Object.values(resourcesOf(templates.build, 'AWS::Lambda::Function'))[0] as Resource;
    expect(JSON.stringify(buildEvents.Properties.Environment.Variables.SLUICE_PUBLIC_URL)).toMatch(/SluiceApi:ExportsOutputFnGetAttHttpApi\w*ApiEndpoint/);
  });

  it('runs every Lambda of every stack from one code asset', () => {
    const keys = new Set<string>();
    for (const template of Object.values(templates)) {
      for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) keys.add(JSON.stringify(fn.Properties.Code.S3Key));
    }
    expect(keys.size).toBe(1);
  });
});
