import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { RateLimitedError, ServiceError, ValidationError } from '../../domain/errors.js';
import type { ErrorKind } from '../../domain/errors.js';
import { jsonResponse } from '../response.js';

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  timeout: 408,
  conflict: 409,
  too_large: 413,
  too_many_requests: 429,
  unprocessable: 422,
};

export interface ErrorLogger {
  error(details: object, message: string): void;
}

/**
 * Turns every error into `{"detail": ...}`: service errors with their status, validation
 * errors as 422 with field paths, anything else as a 500 whose cause goes to the log only.
 */
export function errorResponder(logger: ErrorLogger): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: async (request) => {
      const error = request.error;
      if (error instanceof ValidationError) {
        request.response = jsonResponse(422, { detail: error.issues });
      } else if (error instanceof ServiceError) {
        request.response = jsonResponse(STATUS_BY_KIND[error.kind], { detail: error.message });
        if (error instanceof RateLimitedError) request.response.headers = { ...request.response.headers, 'retry-after': String(error.retryAfterSeconds) };
      } else {
        logger.error({ err: error, path: request.event.rawPath }, 'request failed');
        request.response = jsonResponse(500, { detail: 'Internal server error.' });
      }
    },
  };
}
