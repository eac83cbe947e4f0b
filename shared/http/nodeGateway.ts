import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Context } from 'aws-lambda';
import type { Services } from '../services/services.js';
import type { ErrorLogger } from './middlewares/errorResponder.js';
import type { Route } from './route.js';
import type { HttpHandler } from './routeHandler.js';
import { createRouteHandler } from './routeHandler.js';
import { RouteMatcher } from './routeMatcher.js';
import { stringifyJson } from './json.js';
import { nextRequestId, toApiGatewayEvent } from './apiGatewayEvent.js';
import { readBody } from './readBody.js';

/**
 * Paths the route table does not hold, served by their own handler with the raw request: the
 * local mode's upload URLs (S3 serves them on AWS), whose bodies are streamed, not buffered.
 */
export interface RawEndpoint {
  pathPrefix: string;
  serve(request: IncomingMessage, url: URL): Promise<{ status: number; body?: unknown }>;
}

export interface NodeGatewayOptions {
  routes: readonly Route[];
  endpoints?: readonly RawEndpoint[];
  services: Services;
  logger: ErrorLogger;
  maxBodyBytes: number;
}

/**
 * The local mode's API Gateway: a node HTTP server that turns each request into the same
 * API Gateway v2 event a Lambda receives and runs the same middy handler with it.
 */
export function createNodeGateway(options: NodeGatewayOptions): Server {
  const matcher = new RouteMatcher(options.routes);
  const handlers = new Map<Route, HttpHandler>(
    options.routes.map((route) => [route, createRouteHandler(route, async () => options.services, options.logger)]),
  );
  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      options.logger.error({ err: error }, 'gateway failed');
      if (!response.headersSent) send(response, 500, { detail: 'Internal server error.' });
    });
  });
  // Await holds a request open for minutes; node's defaults would cut it.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  return server;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local');
    const endpoint = options.endpoints?.find((candidate) => url.pathname.startsWith(candidate.pathPrefix));
    if (endpoint) return serveRaw(endpoint, request, url, response);
    const match = matcher.match(request.method ?? 'GET', url.pathname);
    if (match.kind === 'none') return send(response, 404, { detail: 'Not Found' });
    if (match.kind === 'wrong_method') return send(response, 405, { detail: 'Method Not Allowed' });
    const body = (await readBody(request, options.maxBodyBytes))?.toString('utf8') ?? null;
    if (body === null) {
      response.setHeader('connection', 'close');
      return send(response, 413, { detail: `Request body too large: the limit is ${Math.round(options.maxBodyBytes / 1024 / 1024)} MB.` });
    }
    const handler = handlers.get(match.route) as HttpHandler;
    const result = await handler(toApiGatewayEvent(request, url, `${match.route.method} ${match.route.path}`, match.params, body), lambdaContext(match.route.name));
    response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
    response.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : result.body);
  }
}

async function serveRaw(endpoint: RawEndpoint, request: IncomingMessage, url: URL, response: ServerResponse): Promise<void> {
  const result = await endpoint.serve(request, url);
  // A body refused unread would be taken for the next request on this connection.
  if (!request.complete) response.setHeader('connection', 'close');
  if (result.body === undefined) {
    response.writeHead(result.status);
    response.end();
  } else {
    send(response, result.status, result.body);
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(stringifyJson(body));
}

function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:local:lambda:${functionName}`,
    memoryLimitInMB: '0',
    awsRequestId: nextRequestId(),
    logGroupName: 'local',
    logStreamName: 'local',
    // The local mode has no invocation deadline; a day stands for none.
    getRemainingTimeInMillis: () => 86_400_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
