import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Services } from '../services/services.js';
import type { ErrorLogger } from './middlewares/errorResponder.js';
import { errorResponder } from './middlewares/errorResponder.js';
import { authenticate } from './middlewares/authenticate.js';
import { validateRequest } from './middlewares/validateRequest.js';
import { jsonResponse, redirectResponse, textResponse } from './response.js';
import type { Route, RouteResult } from './route.js';
import type { RouteContext } from './routeContext.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The one way a route is served, on Lambda and in the local gateway alike:
 * errors -> authentication (unless the route is public) -> validation -> the route's handler.
 */
export function createRouteHandler(route: Route, getServices: () => Promise<Services>, logger: ErrorLogger): HttpHandler {
  // No early-timeout response: await is meant to run to its own limit, and Lambda's own timeout still stands.
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, RouteContext>({ timeoutEarlyInMillis: 0 })
    .use({
      before: async (request) => {
        request.context.services = await getServices();
      },
    })
    .use(errorResponder(logger))
    // middy refuses an empty middleware: a public route simply has no authentication step.
    .use(route.public ? [] : [authenticate()])
    .use(validateRequest(route))
    .handler(async (_event, context) => {
      const { input, principal, services } = context;
      if (!input) throw new Error('route ran before validation');
      let result: RouteResult;
      if (route.public) result = await route.handle({ ...input, services });
      else if (principal) result = await route.handle({ ...input, principal, services });
      else throw new Error('a keyed route ran before authentication');
      if ('redirect' in result) return redirectResponse(result.redirect);
      if ('text' in result) return textResponse(result.status ?? 200, result.contentType, result.text);
      return jsonResponse(result.status ?? 200, result.body);
    });
  return handler as unknown as HttpHandler;
}
