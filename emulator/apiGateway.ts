import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toApiGatewayEvent } from '../shared/http/apiGatewayEvent.js';
import { corsHeaders, preflightHeaders, type CorsPolicy } from '../shared/http/cors.js';
import { readBody } from '../shared/http/readBody.js';
import { RouteMatcher } from '../shared/http/routeMatcher.js';
import type { CloudAssembly } from './cloudAssembly.js';
import type { Resolver } from './intrinsics.js';
import { LambdaInvocationError, THROTTLED, type LambdaService } from './lambda/lambdaService.js';

/** API Gateway's own limits for HTTP APIs. */
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const INTEGRATION_TIMEOUT_MS = 30_000;

export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  routeKey: string;
  functionName: string;
}

/** The HTTP API's routes as the template declares them: route key -> integration -> function. */
export function apiRoutes(assembly: CloudAssembly, resolve: Resolver): ApiRoute[] {
  return assembly.ofType('AWS::ApiGatewayV2::Route').map(({ stack, resource }) => {
    const routeKey = resource.Properties?.RouteKey as string;
    const integrationId = String(resolve(stack, resource.Properties?.Target)).replace(/^integrations\//, '');
    const integration = assembly.stacks[stack]?.Resources[integrationId];
    const functionArn = String(resolve(stack, integration?.Properties?.IntegrationUri));
    const [method, path] = routeKey.split(' ') as [ApiRoute['method'], string];
    return { method, path, routeKey, functionName: functionArn.split(':').pop() as string };
  });
}

/**
 * The CORS API Gateway applies, from the HTTP API's CorsConfiguration (or a function URL's
 * Cors, whose fields are named alike); null when the template configures none.
 */
export function corsOf(config: Record<string, any> | undefined): CorsPolicy | null {
  if (!config) return null;
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  return {
    allowOrigins: list(config.AllowOrigins),
    allowMethods: list(config.AllowMethods),
    allowHeaders: list(config.AllowHeaders),
    exposeHeaders: list(config.ExposeHeaders),
    maxAgeS: Number(config.MaxAge ?? 0),
  };
}

/** The HTTP API's CORS configuration, as the template declares it. */
export function apiCors(assembly: CloudAssembly): CorsPolicy | null {
  return corsOf(assembly.ofType('AWS::ApiGatewayV2::Api')[0]?.resource.Properties?.CorsConfiguration);
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|x-www-form-urlencoded|javascript)|$)/;

interface LambdaHttpResult {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/**
 * The HTTP API in front of the route Lambdas, as API Gateway behaves: route keys matched
 * (no match, or another method: 404 `{"message":"Not Found"}`), the payload 2.0 event built,
 * one synchronous invocation per request, 413 past 10 MB, 500 on a function error or a
 * throttle (a function URL: 502 and 429), 503 past
 * the 30 s integration timeout. `routeFor` null serves every path with one function: a
 * Lambda function URL. With `cors`, preflights (OPTIONS) on any path are answered 204 without
 * invoking anything, and every answer, the gateway's own errors included, carries the CORS
 * headers in place of any the function sets.
 */
export function startHttpFront(
  lambdas: LambdaService,
  routes: ApiRoute[] | { functionName: string },
  port: number,
  host: string,
  cors: CorsPolicy | null = null,
  /** Told of every request received, as API Gateway meters them. */
  onRequest: () => void = () => undefined,
): Promise<{ server: Server; url: string }> {
  const matcher = Array.isArray(routes) ? new RouteMatcher(routes) : null;
  const single = Array.isArray(routes) ? null : routes.functionName;
  const server = createServer((request, response) => {
    void serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { message: 'Internal Server Error' });
      process.stderr.write(`http front: ${(error as Error).stack}\n`);
    });
  });
  server.requestTimeout = 0;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    onRequest();
    if (cors) {
      const origin = request.headers.origin;
      if (request.method === 'OPTIONS') {
        response.writeHead(204, preflightHeaders(cors, origin));
        return void response.end();
      }
      for (const [name, value] of Object.entries(corsHeaders(cors, origin))) response.setHeader(name, value);
    }
    const url = new URL(request.url ?? '/', 'http://emulated');
    let functionName = single as string;
    let routeKey = '$default';
    let params: Record<string, string> = {};
    if (matcher) {
      const match = matcher.match(request.method ?? 'GET', url.pathname);
      if (match.kind !== 'found') return send(response, 404, { message: 'Not Found' });
      ({ functionName, routeKey } = match.route);
      params = match.params;
    }
    const body = await readBody(request, BODY_LIMIT_BYTES);
    if (!Buffer.isBuffer(body)) return send(response, 413, { message: 'Request Entity Too Large' });
    const text = TEXT_TYPES.test(request.headers['content-type'] ?? '');
    const event = toApiGatewayEvent(request, url, routeKey, params, text ? body.toString('utf8') : body.toString('base64'), !text);
    if (!matcher) delete (event as { pathParameters?: unknown }).pathParameters;
    let result: LambdaHttpResult;
    try {
      result = (await withTimeout(lambdas.invoke(functionName, event), single ? null : INTEGRATION_TIMEOUT_MS)) as LambdaHttpResult;
    } catch (error) {
      if (error === TIMED_OUT) return send(response, 503, { message: 'Service Unavailable' });
      if (error instanceof LambdaInvocationError && error.errorType === 'RequestEntityTooLargeException')
        return send(response, 413, { message: 'Request Entity Too Large' });
      // A throttled function: API Gateway turns Lambda's 429 into its integration failure, 500
      // (AWS's HTTP API troubleshooting notes); a function URL passes Lambda's 429 on, with the
      // body AWS documents for a throttled URL ("Rate Exceeded."). The URL's exact body is not
      // checked against AWS here: clients should go by the status.
      if (error instanceof LambdaInvocationError && error.errorType === THROTTLED && single) return send(response, 429, { Message: 'Rate Exceeded.' });
      return send(response, single ? 502 : 500, { message: 'Internal Server Error' });
    }
    // A result without statusCode is the body itself (API Gateway's inference for payload 2.0).
    if (result === null || typeof result !== 'object' || result.statusCode === undefined) {
      return send(response, 200, result);
    }
    const headers: Record<string, string | string[]> = { ...result.headers };
    if (cors) for (const name of Object.keys(headers)) if (name.toLowerCase().startsWith('access-control-')) delete headers[name];
    if (result.cookies?.length) headers['set-cookie'] = result.cookies;
    response.writeHead(result.statusCode, headers);
    response.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
  }

  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      resolve({ server, url: `http://${host}:${address.port}` });
    });
  });
}

const TIMED_OUT = Symbol('timed out');

function withTimeout<T>(promise: Promise<T>, ms: number | null): Promise<T> {
  if (ms === null) return promise;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
