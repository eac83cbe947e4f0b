import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import type { Services } from '../services/services.js';
import type { ErrorLogger } from './middlewares/errorResponder.js';
import type { Route } from './route.js';
import type { HttpHandler } from './routeHandler.js';
import { createRouteHandler } from './routeHandler.js';
import { RouteMatcher } from './routeMatcher.js';
import { TurnBudget } from './turnBudget.js';
import { stringifyJson } from './json.js';
import { errorAnswer } from './errorAnswer.js';
import { nextRequestId, toApiGatewayEvent } from './apiGatewayEvent.js';
import { readBody } from './readBody.js';
import { parseTarget } from './requestTarget.js';
import type { Principal } from '../services/principal.js';
import { ServiceError, unauthorized } from '../domain/errors.js';
import { attachmentDisposition } from '../domain/fileName.js';
import { contentTypeOf } from '../domain/contentType.js';
import type { OutputFileContent } from '../ports/artifacts.js';
import type { EventStream } from '../services/eventStream.js';
import { CAUGHT_UP } from '../services/eventStream.js';
import { formatEvent, KEEP_ALIVE, KEEP_ALIVE_MS } from './serverSentEvents.js';
import { corsHeaders, corsPolicy, preflightHeaders, type CorsPolicy } from './cors.js';
import type { SiteAnswer } from './dashboard/dashboardSite.js';

/**
 * Paths the route table does not hold, served by their own handler with the raw request: the
 * local mode's upload and download URLs (S3 serves them on AWS), whose bodies are streamed,
 * not buffered; and /metrics, which reads the caller's address and headers. An answer is a
 * status with an optional JSON body, a text body, or a file to stream.
 */
export interface RawEndpoint {
  pathPrefix: string;
  serve(
    request: IncomingMessage,
    url: URL,
  ): Promise<{ status: number; body?: unknown } | { status: number; text: string; contentType: string } | { status: 200; file: OutputFileContent }>;
}

/** Where the one line per request goes; only while `isLevelEnabled('debug')`, where it has that (pino does). */
interface RequestLogger {
  debug?(details: object, message: string): void;
  isLevelEnabled?(level: string): boolean;
}

export interface NodeGatewayOptions {
  routes: readonly Route[];
  endpoints?: readonly RawEndpoint[];
  services: Services;
  /** Errors; and, when it has `debug`, one summary line per request. */
  logger: ErrorLogger & RequestLogger;
  maxBodyBytes: number;
  /** A route's body must have arrived within this (default 30 s), or the request is answered 408. */
  bodyTimeoutMs?: number;
  /** Who browsers may call from (default: any origin); every answer carries it, preflights are answered 204. */
  cors?: CorsPolicy;
  /**
   * The files of a site (the dashboard) by path, for GETs that neither a route nor an endpoint
   * takes, outside /v2/: it can never shadow the API. Null is a 404.
   */
  site?: (pathname: string) => SiteAnswer | null;
}

/** A service that stops drains its requests: what comes meanwhile, and what waits, is answered 503 with this Retry-After. */
export interface NodeGateway extends Server {
  /** From now on every request is answered 503, and those of waiting routes (await) in flight at once. */
  drain(): void;
}

/** Seconds a client is told to wait before asking a stopping service again (a restart takes a few). */
const RETRY_AFTER_S = 5;
const STOPPING = 'The service is stopping; try again shortly.';

/** Handlers started per event-loop turn (turnBudget.ts): enough for a busy turn, few enough that jobs keep finishing. */
const HANDLERS_PER_TURN = 4;

/** The backstop for any request, uploads included, to arrive whole (node answers 408 after it). */
const REQUEST_TIMEOUT_MS = 15 * 60_000;

/**
 * The local mode's API Gateway: a node HTTP server that turns each request into the same
 * API Gateway v2 event a Lambda receives and runs the same middy handler with it.
 */
export function createNodeGateway(options: NodeGatewayOptions): NodeGateway {
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const cors = options.cors ?? corsPolicy();
  // With any origin allowed, every answer's CORS headers are the same: made once.
  const anyOriginHeaders = cors.allowOrigins.includes('*') ? corsHeaders(cors, undefined) : null;
  const matcher = new RouteMatcher(options.routes);
  const budget = new TurnBudget(HANDLERS_PER_TURN);
  const handlers = new Map<Route, { handle: HttpHandler; routeKey: string }>(
    options.routes.map((route) => [
      route,
      { handle: createRouteHandler(route, async () => options.services, options.logger, 'stream'), routeKey: `${route.method} ${route.path}` },
    ]),
  );
  const server = createServer((request, response) => {
    if (options.logger.debug && options.logger.isLevelEnabled?.('debug') !== false) logWhenFinished(options.logger, request, response);
    serve(request, response).catch((error: unknown) => {
      const answer = errorAnswer(error);
      if (answer.logAs) options.logger.error({ err: error, path: (request.url ?? '').split('?')[0] }, answer.logAs);
      if (response.headersSent) return;
      // A body left unread (an upload cut short) would be taken for the next request.
      if (!request.complete) response.setHeader('connection', 'close');
      if (answer.headers) setHeaders(response, answer.headers);
      send(response, answer.status, answer.body);
    });
  });
  // Both bound how long the request takes to arrive, not the answer: await still holds one for minutes.
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  let draining = false;
  const waiting = new Set<ServerResponse>();
  return Object.assign(server, {
    drain() {
      draining = true;
      for (const response of waiting) answerStopping(response);
      waiting.clear();
    },
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Set before anything answers, so errors carry them too (writeHead merges them in).
    const origin = request.headers.origin;
    if (request.method === 'OPTIONS') {
      // A preflight needs no key and names no route of the table: answered for every path, as API Gateway does.
      response.writeHead(204, preflightHeaders(cors, origin));
      return void response.end();
    }
    setHeaders(response, anyOriginHeaders ?? corsHeaders(cors, origin));
    if (draining) return answerStopping(response);
    const target = parseTarget(request.url ?? '/');
    if (!target) return refuseUnread(response, 400, 'Malformed request target: check its percent-encoding.');
    const endpoint = options.endpoints?.find((candidate) => target.pathname.startsWith(candidate.pathPrefix));
    if (endpoint) return serveRaw(endpoint, request, new URL(request.url ?? '/', 'http://local'), response);
    const match = matcher.match(request.method ?? 'GET', target.pathname);
    if (match.kind === 'none') return serveSite(request, target.pathname, response);
    if (match.kind === 'wrong_method') return send(response, 405, { detail: 'Method Not Allowed' });
    // The key is checked before a byte of the body is read: without one, nobody can make the service take a body.
    const principal = match.route.public ? undefined : await authenticated(request);
    if (principal === null) return refuseUnread(response, 401, unauthorized().message);
    const body = hasBody(request) ? await readBody(request, options.maxBodyBytes, bodyTimeoutMs) : '';
    if (body === 'too_large')
      return refuseUnread(
        response,
        413,
        `Request body too large: the limit is ${Math.round(options.maxBodyBytes / 1024 / 1024)} MB (SLUICE_MAX_BODY_MB; for code bundles, deploy through an upload).`,
      );
    if (body === 'too_slow') return refuseUnread(response, 408, `Request body not received within ${bodyTimeoutMs / 1000} s.`);
    const { handle, routeKey } = handlers.get(match.route) as { handle: HttpHandler; routeKey: string };
    if (match.route.waits) {
      waiting.add(response);
      response.once('close', () => waiting.delete(response));
    }
    const turn = budget.admit();
    if (turn) await turn;
    // The caller goes where a Lambda authorizer's context would: the route's middleware takes it rather than looking the key up again.
    const event = toApiGatewayEvent(
      request,
      target,
      routeKey,
      match.params,
      typeof body === 'string' ? body : body.toString('utf8'),
      false,
      principal && { principal },
    );
    const result = await handle(event, new LocalLambdaContext(match.route.name));
    if (response.headersSent) return; // answered 503 by drain() meanwhile
    if (result.eventStream) return writeEvents(result.eventStream, result.headers as Record<string, string>, response);
    const answer = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
    // Set one by one: writeHead merging an object into headers already set costs more than the rest of a small answer.
    if (result.headers) setHeaders(response, result.headers as Record<string, string>);
    // A known length sends the answer in one write, not as chunks.
    response.setHeader('content-length', Buffer.byteLength(answer));
    response.writeHead(result.statusCode ?? 200);
    response.end(answer);
  }

  function serveSite(request: IncomingMessage, pathname: string, response: ServerResponse): void {
    const readsOnly = request.method === 'GET' || request.method === 'HEAD';
    const answer = readsOnly && options.site && !pathname.startsWith('/v2/') ? options.site(pathname) : null;
    if (!answer) return send(response, 404, { detail: 'Not Found' });
    response.writeHead(answer.status, { ...answer.headers, 'content-length': answer.body.length });
    response.end(answer.body);
  }

  /** The caller its X-API-Key names; null for a missing, unknown or revoked key. */
  async function authenticated(request: IncomingMessage): Promise<Principal | null> {
    try {
      // Node joins a repeated header's values into one string already.
      return await options.services.auth.authenticate(request.headers['x-api-key'] as string | undefined);
    } catch (error) {
      if (error instanceof ServiceError && error.kind === 'unauthorized') return null;
      throw error;
    }
  }
}

/**
 * Whether a request has a body to read: one with neither Content-Length nor Transfer-Encoding
 * has none (RFC 9112 6.3), which spares the GETs waiting for the end of one.
 */
function hasBody(request: IncomingMessage): boolean {
  return request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
}

/** One debug line for the request once it is answered. */
function logWhenFinished(logger: RequestLogger, request: IncomingMessage, response: ServerResponse): void {
  const started = performance.now();
  response.once('finish', () => {
    // The path without its query: a query may carry a signed URL's signature.
    const path = (request.url ?? '').split('?')[0];
    logger.debug?.({ method: request.method, path, status: response.statusCode, ms: Math.round(performance.now() - started) }, 'request');
  });
}

/** Answers before (or without) reading the body; the connection closes, since the unread rest would be taken for the next request. */
function refuseUnread(response: ServerResponse, status: number, detail: string): void {
  response.setHeader('connection', 'close');
  send(response, status, { detail });
}

/**
 * Server-Sent Events as they come, keep-alive comments while quiet, until the stream ends or the
 * client leaves. A client that does not read holds the stream back: nothing more is read from
 * the store until what was written has drained, so a long history is never buffered whole.
 */
async function writeEvents(stream: EventStream, headers: Record<string, string>, response: ServerResponse): Promise<void> {
  const leave = new AbortController();
  response.on('close', () => leave.abort());
  response.writeHead(200, headers);
  response.flushHeaders(); // the client's fetch resolves now, before the first event
  // Nothing is written once the client has left (the stream is being stopped then).
  const send = (text: string) => leave.signal.aborted || response.write(text);
  // A keep-alive is for a quiet stream; one whose client is behind needs none.
  const keepAlive = setInterval(() => response.writableNeedDrain || send(KEEP_ALIVE), KEEP_ALIVE_MS);
  try {
    for await (const item of stream(leave.signal)) {
      if (item !== CAUGHT_UP && !send(formatEvent(item))) await drained(response, leave.signal);
    }
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}

/** Resolves once the response's buffer has drained, or the client has left. */
function drained(response: ServerResponse, leave: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      leave.removeEventListener('abort', done);
      resolve();
    };
    response.once('drain', done);
    leave.addEventListener('abort', done);
  });
}

async function serveRaw(endpoint: RawEndpoint, request: IncomingMessage, url: URL, response: ServerResponse): Promise<void> {
  const result = await endpoint.serve(request, url);
  // A body refused unread would be taken for the next request on this connection.
  if (!request.complete) response.setHeader('connection', 'close');
  if ('file' in result) {
    const { name, size, stream } = result.file;
    response.writeHead(200, { 'content-type': contentTypeOf(name), 'content-length': size, 'content-disposition': attachmentDisposition(name) });
    await pipeline(stream, response).catch(() => response.destroy()); // a client that went away
  } else if ('text' in result) {
    response.writeHead(result.status, { 'content-type': result.contentType });
    response.end(result.text);
  } else if (result.body === undefined) {
    response.writeHead(result.status);
    response.end();
  } else {
    send(response, result.status, result.body);
  }
}

/** 503 with Retry-After, and the connection closed: the next request goes to a new connection (a restarted service). */
function answerStopping(response: ServerResponse): void {
  if (response.headersSent) return;
  response.setHeader('retry-after', String(RETRY_AFTER_S));
  refuseUnread(response, 503, STOPPING);
}

function setHeaders(response: ServerResponse, headers: Record<string, string>): void {
  for (const name in headers) response.setHeader(name, headers[name] as string);
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = stringifyJson(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** Lambda's context for a local request: a class, so its methods are shared rather than made per request. */
class LocalLambdaContext implements Context {
  readonly callbackWaitsForEmptyEventLoop = false;
  readonly functionVersion = '$LATEST';
  readonly invokedFunctionArn: string;
  readonly memoryLimitInMB = '0';
  readonly awsRequestId = nextRequestId();
  readonly logGroupName = 'local';
  readonly logStreamName = 'local';

  constructor(readonly functionName: string) {
    this.invokedFunctionArn = `arn:local:lambda:${functionName}`;
  }

  /** The local mode has no invocation deadline; a day stands for none. */
  getRemainingTimeInMillis(): number {
    return 86_400_000;
  }

  done(): void {}
  fail(): void {}
  succeed(): void {}
}
