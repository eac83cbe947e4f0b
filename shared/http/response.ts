import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyJson } from './json.js';

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: stringifyJson(body) };
}

/** A temporary redirect (the method is kept) to a short-lived URL, which no cache may keep. */
export function redirectResponse(location: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 307, headers: { location, 'cache-control': 'no-store' }, body: '' };
}

export function textResponse(statusCode: number, contentType: string, text: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': contentType }, body: text };
}
