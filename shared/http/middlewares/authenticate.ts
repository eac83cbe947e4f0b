import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RouteContext } from '../routeContext.js';

/** Resolves X-API-Key to the calling organization before anything else looks at the request. */
export function authenticate(): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, RouteContext> {
  return {
    before: async (request) => {
      const { services } = request.context;
      request.context.principal = await services.auth.authenticate(request.event.headers['x-api-key']);
    },
  };
}
