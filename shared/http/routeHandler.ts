import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Services } from '../services/services.js';
import type { ErrorLogger } from './middlewares/errorResponder.js';
import { errorResponder } from './middlewares/errorResponder.js';
import { authenticate } from './middlewares/authenticate.js';
import { validateRequest } from './middlewares/validateRequest.js';
import { jsonResponse, redirectResponse } from './response.js';
import type { Route } from './route.js';
import type { RouteContext } from './routeContext.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The one way a route is served, on Lambda and in the local gateway alike:
 * errors -> authentication -> validation -> the route's handler.
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
    .use(authenticate())
    .use(validateRequest(route))
    .handler(async (_event, context) => {
      const { input, principal, services } = context;
      if (!input || !principal) throw new Error('route ran before authentication and validation');
      const result = await route.handle({ ...input, principal, services });
      if ('redirect' in result) return redirectResponse(result.redirect);
      return jsonResponse(result.status ?? 200, result.body);
    });
  return handler as unknown as HttpHandler;
}
