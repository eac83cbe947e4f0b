import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorAnswer } from '../errorAnswer.js';
import { jsonResponse } from '../response.js';

export interface ErrorLogger {
  error(details: object, message: string): void;
}

/** Turns every error into `{"detail": ...}` with its status (errorAnswer.ts); what the client did not cause goes to the log. */
export function errorResponder(logger: ErrorLogger): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: async (request) => {
      const error = request.error;
      const answer = errorAnswer(error);
      if (answer.logAs) logger.error({ err: error, path: request.event.rawPath }, answer.logAs);
      request.response = jsonResponse(answer.status, answer.body);
      if (answer.headers) request.response.headers = { ...request.response.headers, ...answer.headers };
    },
  };
}
