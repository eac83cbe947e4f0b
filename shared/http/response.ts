import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { attachmentDisposition } from '../domain/fileName.js';
import { stringifyJson } from './json.js';

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: stringifyJson(body) };
}

/** Bytes, base64-encoded as API Gateway carries binary bodies. */
export function fileResponse(name: string, data: Buffer): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/octet-stream', 'content-disposition': attachmentDisposition(name) },
    body: data.toString('base64'),
    isBase64Encoded: true,
  };
}

/** A temporary redirect (the method is kept) to a short-lived URL, which no cache may keep. */
export function redirectResponse(location: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 307, headers: { location, 'cache-control': 'no-store' }, body: '' };
}
