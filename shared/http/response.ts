import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyJson } from './json.js';

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: stringifyJson(body) };
}
