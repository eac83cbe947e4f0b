import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { FunctionUrlAuthType, HttpMethod as FunctionUrlMethod, InvokeMode, type Function as LambdaFunction, type FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { Route } from '../../shared/http/route.js';
import { corsPolicy, type CorsPolicy } from '../../shared/http/cors.js';
import { DEFAULT_API_THROTTLE, type ApiThrottle } from '../apiThrottle.js';
import { sluiceFunction } from '../lambdaFunction.js';
import { API_WAITING_ROUTES, DEFAULT_WAITER_CONCURRENCY, type WaiterConcurrency } from '../waiterConcurrency.js';
import { acknowledge } from '../nag.js';
import type { SluiceNames } from '../names.js';
import { routePermissions } from '../routePermissions.js';

export interface ApiStackProps extends StackProps {
  names: SluiceNames;
  /** The route table (shared/http/routeTable.ts ROUTES). */
  routes: readonly Route[];
  /** The Lambda bundle folder (infra/bundle.ts). */
  codeFolder: string;
  /** Who browsers may call from (default: any origin): API Gateway answers preflights and adds the headers. */
  cors?: CorsPolicy;
  /** The default stage's throttle, all routes together (default: DEFAULT_API_THROTTLE). */
  throttle?: ApiThrottle;
  /** Reserved concurrency of the waiting routes' functions (default: DEFAULT_WAITER_CONCURRENCY; 0: none). */
  waiterConcurrency?: WaiterConcurrency;
}

/** The route that waits for a job; API Gateway cannot hold it for the interface's 10 minutes. */
export const AWAIT_ROUTE = 'awaitJob';
/** Below API Gateway's 30 s integration cut, so the route answers 408 itself. */
export const API_AWAIT_TIMEOUT_S = 25;
/** The interface's await window, served by the function URL. */
export const LONG_AWAIT_TIMEOUT_S = 600;

/**
 * The Sieve v2 HTTP API: an API Gateway HTTP API with one route per entry of the route table,
 * each integrated with its own Lambda (the shared bundle's route.mjs; SLUICE_ROUTE names the
 * route) holding only its route's permissions (infra/routePermissions.ts).
 *
 * Await: HTTP API integrations are cut at 30 s, so the API's await route waits 25 s and then
 * answers 408. The full 10-minute wait is served a second way: a Lambda function URL on a
 * separate function (15-minute timeout) running the same route. The URL's auth is NONE
 * because the route authenticates X-API-Key itself, as every route does.
 *
 * Waiting: an await or event stream holds its function's execution while it waits, so the
 * waiting routes' functions and the await URL's have reserved concurrency
 * (infra/waiterConcurrency.ts): waiters past it are throttled, and never take the executions
 * that pushes and reads need.
 */
/**
 * The dashboard's paths (its page, the files beside it, its hashed assets), served by one
 * Lambda from the build the bundle carries. None can shadow the API: each is a single segment
 * or under /assets/, and API Gateway prefers the route table's longer literal paths anyway.
 */
export const DASHBOARD_PATHS = ['/', '/{file}', '/assets/{file}'] as const;

/** A deploy reads its bundle through (gunzip and tar, checking the limits): a whole vCPU's worth. */
export const DEPLOY_MEMORY_MB = 1769;

/**
 * Why the routes have no API Gateway authorizer (cdk-nag APIG4): each route's Lambda checks
 * the caller's X-API-Key itself (the Sieve v2 interface's authentication), as the function URL's do.
 */
const ROUTES_AUTHENTICATE =
  'Every route authenticates the caller’s X-API-Key in its Lambda (the Sieve v2 interface’s API keys, hashed in the api_keys table); an API Gateway authorizer would check the same key a second time.';

export class ApiStack extends Stack {
  readonly httpApi: HttpApi;
  /** The API's one stage, `$default`: throttled, with access logs. */
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  /** Each route's function, by route name. */
  readonly routeFunctions: Record<string, LambdaFunction>;
  readonly awaitFunction: LambdaFunction;
  readonly awaitFunctionUrl: FunctionUrl;
  readonly dashboardFunction: LambdaFunction;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { names, routes, codeFolder } = props;
    const cors = props.cors ?? corsPolicy();
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `${names.prefix}api`,
      description: 'Sluice: the Sieve v2 API',
      // API Gateway answers every path's preflight itself and puts these on every answer, the routes' errors included.
      corsPreflight: {
        allowOrigins: [...cors.allowOrigins],
        allowMethods: cors.allowMethods.map((method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod]),
        allowHeaders: [...cors.allowHeaders],
        exposeHeaders: [...cors.exposeHeaders],
        maxAge: Duration.seconds(cors.maxAgeS),
      },
      // The stage below replaces the default one, to set its throttle and access logs.
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    // Under the API, with the default stage's id: the same resource as CDK's default stage.
    this.stage = new HttpStage(this.httpApi, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? DEFAULT_API_THROTTLE,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs) },
    });

    const waiters = props.waiterConcurrency ?? DEFAULT_WAITER_CONCURRENCY;
    // A reservation of 0 would throttle every call: 0 means none, as the context value documents.
    const reserve = (count: number) => (count > 0 ? count : undefined);
    const routeFunction = (functionId: string, route: Route, timeout: Duration, environment: Record<string, string>, reservedConcurrentExecutions?: number) =>
      sluiceFunction(this, functionId, {
        names,
        codeFolder,
        entry: 'route',
        description: `Sluice ${route.method} ${route.path}`,
        timeout,
        memorySize: route.name === 'deployVersion' ? DEPLOY_MEMORY_MB : undefined,
        environment: { SLUICE_ROUTE: route.name, ...environment },
        reservedConcurrentExecutions,
        permissions: routePermissions(route.name),
      });

    this.routeFunctions = {};
    for (const route of routes) {
      const awaits = route.name === AWAIT_ROUTE;
      const waits = API_WAITING_ROUTES.includes(route.name);
      const fn = routeFunction(
        route.name,
        route,
        Duration.seconds(29),
        awaits ? { SLUICE_AWAIT_TIMEOUT_S: String(API_AWAIT_TIMEOUT_S) } : {},
        waits ? reserve(waiters.api) : undefined,
      );
      const httpRoute = new HttpRoute(this, `${route.name}Route`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.name}Integration`, fn),
      });
      acknowledge(httpRoute, [{ id: 'AwsSolutions-APIG4', reason: ROUTES_AUTHENTICATE }]);
      this.routeFunctions[route.name] = fn;
    }

    const awaitRoute = routes.find((route) => route.name === AWAIT_ROUTE);
    if (!awaitRoute) throw new Error(`The route table has no ${AWAIT_ROUTE} route`);
    this.awaitFunction = routeFunction(
      'awaitJobLong',
      awaitRoute,
      Duration.minutes(15),
      { SLUICE_AWAIT_TIMEOUT_S: String(LONG_AWAIT_TIMEOUT_S) },
      reserve(waiters.longAwait),
    );
    this.awaitFunctionUrl = this.awaitFunction.addFunctionUrl({
      authType: FunctionUrlAuthType.NONE,
      invokeMode: InvokeMode.BUFFERED,
      cors: {
        allowedOrigins: [...cors.allowOrigins],
        allowedMethods: [FunctionUrlMethod.GET],
        allowedHeaders: [...cors.allowHeaders],
        exposedHeaders: [...cors.exposeHeaders],
        maxAge: Duration.seconds(cors.maxAgeS),
      },
    });

    this.dashboardFunction = sluiceFunction(this, 'dashboard', {
      names,
      codeFolder,
      entry: 'dashboard',
      description: 'Sluice: the dashboard (its page and assets)',
      timeout: Duration.seconds(10),
      memorySize: 256,
      permissions: {},
    });
    const dashboardIntegration = new HttpLambdaIntegration('dashboardIntegration', this.dashboardFunction);
    DASHBOARD_PATHS.forEach((path, index) => {
      const route = new HttpRoute(this, `dashboardRoute${index}`, {
        httpApi: this.httpApi,
        routeKey: HttpRouteKey.with(path, HttpMethod.GET),
        integration: dashboardIntegration,
      });
      // The page signs in with an API key typed into it and calls the API's routes with it.
      acknowledge(route, [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'The dashboard’s page and static assets are public files (no data); the page calls the API’s routes with an API key, which they authenticate.',
        },
      ]);
    });
    if (!existsSync(join(codeFolder, 'dashboard', 'index.html')))
      Annotations.of(this).addWarning('The dashboard is not built (web/dist): run `npm run build` before deploying, or / answers how to.');

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint, description: 'The Sieve v2 API (SLUICE_URL)' });
    new CfnOutput(this, 'DashboardUrl', { value: `${this.httpApi.apiEndpoint}/`, description: 'The dashboard: sign in with an API key' });
    new CfnOutput(this, 'AwaitFunctionUrl', {
      value: this.awaitFunctionUrl.url,
      description: `GET <this URL>v2/jobs/{job_id}/await with X-API-Key: waits up to ${LONG_AWAIT_TIMEOUT_S} s (the API's own await route answers 408 after ${API_AWAIT_TIMEOUT_S} s)`,
    });
  }

  /** The API's base URL, `https://<id>.execute-api.<region>.amazonaws.com`. */
  get url(): string {
    return this.httpApi.apiEndpoint;
  }
}
