import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyJson } from './json.js';

export function jsonResponse(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: stringifyJson(body) };
}

/** Bytes, base64-encoded as API Gateway carries binary bodies. */
export function fileResponse(name: string, data: Buffer): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"` },
    body: data.toString('base64'),
    isBase64Encoded: true,
  };
}
