import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { ValidationIssue } from '../../domain/errors.js';
import { ValidationError } from '../../domain/errors.js';
import type { Route } from '../route.js';
import type { RouteContext } from '../routeContext.js';
import { pathParametersOf } from '../routeMatcher.js';
import { toValidationIssues } from '../validation.js';

type Source = 'path' | 'query' | 'header' | 'body';

/**
 * Parses path, query, headers and JSON body with the route's schemas. All are checked before
 * answering, so a client sees every problem at once, each with its field path.
 */
export function validateRequest(route: Route): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, RouteContext> {
  return {
    before: (request) => {
      const { event } = request;
      const issues: ValidationIssue[] = [];
      const params = route.params && parse(issues, 'path', route.params, event.pathParameters ?? pathParametersOf(route, event.rawPath) ?? {});
      const query = route.query && parse(issues, 'query', route.query, event.queryStringParameters ?? {});
      const headers = route.headers && parse(issues, 'header', route.headers, event.headers ?? {});
      let body: unknown;
      if (route.body) {
        const json = parseJsonBody(event);
        if (json.ok) body = parse(issues, 'body', route.body, json.value);
        else issues.push({ loc: ['body'], msg: `JSON decode error: ${json.error}`, type: 'json_invalid' });
      }
      if (issues.length > 0) throw new ValidationError(issues);
      request.context.input = { params, query, body, headers };
    },
  };
}

/** The parsed value, or undefined with its issues added to `issues`. */
function parse(issues: ValidationIssue[], source: Source, schema: z.ZodType, value: unknown): unknown {
  // Plain parsing first: asking zod for each issue's input makes every parse, passing ones too, many times slower.
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // Again for the issues: the input on each tells a missing field (undefined) from one of the wrong type.
  const reported = schema.safeParse(value, { reportInput: true });
  issues.push(...toValidationIssues(source, (reported.error ?? result.error) as z.ZodError));
  return undefined;
}

type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

function parseJsonBody(event: APIGatewayProxyEventV2): JsonBody {
  if (event.body === undefined || event.body === '') return { ok: true, value: undefined };
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
