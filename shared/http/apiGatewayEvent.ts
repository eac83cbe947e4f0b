import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** Request ids: unique within the process, and cheaper than a UUID per request. */
let requestCounter = 0;
export const nextRequestId = () => `local-${process.pid}-${++requestCounter}`;

/**
 * The API Gateway HTTP API (payload 2.0) event of a request matched to `routeKey`
 * (`GET /v2/jobs/{job_id}`): what the local gateway and the AWS emulation hand a route's handler.
 * A body that is not text arrives base64-encoded, as API Gateway sends it.
 */
export function toApiGatewayEvent(request: IncomingMessage, url: URL, routeKey: string, pathParameters: Record<string, string>, body: string, isBase64Encoded = false): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // API Gateway joins repeated query parameters with commas; so do we.
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    queryStringParameters[name] = name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
  }
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters,
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
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: nextRequestId(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
  };
}

