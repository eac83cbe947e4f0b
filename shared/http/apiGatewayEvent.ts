import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Principal } from '../services/principal.js';
import type { RequestTarget } from './requestTarget.js';

/** Request ids: unique within the process, and cheaper than a UUID per request. */
let requestCounter = 0;
export const nextRequestId = () => `local-${process.pid}-${++requestCounter}`;

/**
 * What a Lambda authorizer hands the route (`requestContext.authorizer.lambda`): the caller it
 * resolved. The local gateway fills it, having checked the key before reading the body; on AWS
 * no authorizer is configured, so API Gateway never sets it and nothing a client sends can.
 */
export interface AuthorizerContext {
  principal: Principal;
}

/** API Gateway's event, with the authorizer's context when one resolved the caller. */
export type RouteEvent = APIGatewayProxyEventV2 & { requestContext: { authorizer?: { lambda?: AuthorizerContext } } };

/**
 * The API Gateway HTTP API (payload 2.0) event of a request matched to `routeKey`
 * (`GET /v2/jobs/{job_id}`): what the local gateway and the AWS emulation hand a route's handler.
 * A body that is not text arrives base64-encoded, as API Gateway sends it.
 */
export function toApiGatewayEvent(
  request: IncomingMessage,
  target: RequestTarget,
  routeKey: string,
  pathParameters: Record<string, string>,
  body: string,
  isBase64Encoded = false,
  authorizer?: AuthorizerContext,
): RouteEvent {
  const headers = singleValued(request.headers);
  const now = Date.now();
  const event: RouteEvent = {
    version: '2.0',
    routeKey,
    rawPath: target.pathname,
    rawQueryString: target.search.slice(1),
    headers,
    queryStringParameters: target.search ? queryParameters(target.search) : {},
    pathParameters,
    body,
    isBase64Encoded,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: target.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: nextRequestId(),
      routeKey,
      stage: '$default',
      time: isoTime(now),
      timeEpoch: now,
    },
  };
  if (authorizer) event.requestContext.authorizer = { lambda: authorizer };
  return event;
}

/**
 * Node's headers as API Gateway's: node has joined repeated ones already, all but set-cookie,
 * an array (which no client sends a server); so the object is used as it is unless that is there.
 */
function singleValued(headers: IncomingHttpHeaders): Record<string, string> {
  if (headers['set-cookie'] === undefined) return headers as Record<string, string>;
  const joined: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return joined;
}

/** API Gateway joins repeated query parameters with commas; so do we. */
function queryParameters(search: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    parameters[name] = Object.hasOwn(parameters, name) ? `${parameters[name]},${value}` : value;
  }
  return parameters;
}

/** The last time printed: requests arriving within one millisecond share it. */
let printed = { epochMs: 0, iso: '' };
function isoTime(epochMs: number): string {
  if (printed.epochMs !== epochMs) printed = { epochMs, iso: new Date(epochMs).toISOString() };
  return printed.iso;
}
