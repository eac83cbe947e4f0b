import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RouteEvent } from './apiGatewayEvent.js';
import type { Services } from '../services/services.js';
import type { ErrorLogger } from './middlewares/errorResponder.js';
import { errorResponder } from './middlewares/errorResponder.js';
import { authenticate } from './middlewares/authenticate.js';
import { validateRequest } from './middlewares/validateRequest.js';
import { jsonResponse, redirectResponse, textResponse } from './response.js';
import type { Route, RouteResult } from './route.js';
import type { RouteContext } from './routeContext.js';
import type { EventStream } from '../services/eventStream.js';
import { BUFFERED_STREAM_WINDOW_MS, collectEvents, EVENT_STREAM_HEADERS } from './serverSentEvents.js';

/** An answer; a streamed one (the local gateway's Server-Sent Events) carries the stream to write. */
export type HttpResult = APIGatewayProxyStructuredResultV2 & { eventStream?: EventStream };

export type HttpHandler = (event: RouteEvent, context: Context) => Promise<HttpResult>;

/**
 * How an event stream is answered: `stream` by the local gateway, which writes events as they
 * come; `buffer` on Lambda, whose answer API Gateway sends whole (so it waits a bounded time).
 */
export type StreamDelivery = 'stream' | 'buffer';

/** Lambda's answer must leave before its timeout: a buffered stream ends this much earlier. */
const LAMBDA_MARGIN_MS = 2000;

/**
 * The one way a route is served, on Lambda and in the local gateway alike:
 * errors -> authentication (unless the route is public) -> validation -> the route's handler.
 */
export function createRouteHandler(route: Route, getServices: () => Promise<Services>, logger: ErrorLogger, delivery: StreamDelivery = 'buffer'): HttpHandler {
  // No early-timeout response: await is meant to run to its own limit, and Lambda's own timeout still stands.
  let services: Services | undefined;
  const handler = middy<RouteEvent, APIGatewayProxyStructuredResultV2, Error, RouteContext>({ timeoutEarlyInMillis: 0 })
    .use({
      // Resolved on the first request, then set at once (a middleware that returns nothing costs no promise).
      before: (request) => {
        if (services) {
          request.context.services = services;
          return;
        }
        return getServices().then((resolved) => {
          services = resolved;
          request.context.services = resolved;
        });
      },
    })
    .use(errorResponder(logger))
    // middy refuses an empty middleware: a public route simply has no authentication step.
    .use(route.public ? [] : [authenticate()])
    .use(validateRequest(route))
    .handler(async (_event, context) => {
      const { input, principal, services } = context;
      if (!input) throw new Error('route ran before validation');
      // Written out rather than spread: spreading the input costs more than the rest of a small route.
      const { params, query, body, headers } = input;
      let result: RouteResult;
      if (route.public) result = await route.handle({ params, query, body, headers, services });
      else if (principal) result = await route.handle({ params, query, body, headers, principal, services });
      else throw new Error('a keyed route ran before authentication');
      if ('redirect' in result) return redirectResponse(result.redirect);
      if ('text' in result) return textResponse(result.status ?? 200, result.contentType, result.text);
      if ('events' in result) {
        if (delivery === 'stream') return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body: '', eventStream: result.events };
        const windowMs = Math.min(BUFFERED_STREAM_WINDOW_MS, context.getRemainingTimeInMillis() - LAMBDA_MARGIN_MS);
        return { statusCode: 200, headers: { ...EVENT_STREAM_HEADERS }, body: await collectEvents(result.events, windowMs) };
      }
      return jsonResponse(result.status ?? 200, result.body);
    });
  return handler as unknown as HttpHandler;
}
