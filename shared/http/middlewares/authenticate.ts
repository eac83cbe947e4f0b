import type middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RouteEvent } from '../apiGatewayEvent.js';
import type { RouteContext } from '../routeContext.js';

/**
 * Resolves X-API-Key to the calling organization before anything else looks at the request;
 * or takes the caller an authorizer resolved already (the local gateway, which checks the key
 * before it reads a body), rather than hashing and looking the key up a second time.
 */
export function authenticate(): middy.MiddlewareObj<RouteEvent, APIGatewayProxyStructuredResultV2, Error, RouteContext> {
  return {
    before: (request) => {
      const resolved = request.event.requestContext.authorizer?.lambda?.principal;
      if (resolved) {
        request.context.principal = resolved;
        return;
      }
      return request.context.services.auth.authenticate(request.event.headers['x-api-key']).then((principal) => {
        request.context.principal = principal;
      });
    },
  };
}
