import type { IncomingHttpHeaders } from 'node:http';

/** An AWS API request named as AWS bills it: the signing service (`sqs`, `s3`, `states`) and the operation. */
export interface NamedRequest {
  service: string;
  operation: string;
}

/**
 * Names a request to an AWS endpoint, whatever its protocol: the service from the SigV4
 * credential scope (the Authorization header, or a presigned URL's X-Amz-Credential); the
 * operation from x-amz-target (JSON protocols), the path of RPC v2 CBOR (`/service/X/operation/Op`),
 * the form's Action (query protocol), or for S3's REST API the method and whether it names an
 * object or a bucket (`PUT object`, `GET bucket`: a list), the distinction S3's prices draw.
 */
export function nameRequest(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer): NamedRequest {
  const parsed = new URL(url, 'http://aws');
  const credential = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\//.exec(String(headers.authorization ?? ''))?.[1];
  const presigned = parsed.searchParams.get('X-Amz-Credential')?.split('/')[3];
  const service = credential ?? presigned ?? 'unknown';
  const target = headers['x-amz-target'];
  if (typeof target === 'string') return { service, operation: target.slice(target.lastIndexOf('.') + 1) };
  const rpc = /\/service\/[^/]+\/operation\/([^/?]+)/.exec(parsed.pathname)?.[1];
  if (rpc) return { service, operation: rpc };
  const action = parsed.searchParams.get('Action') ?? formAction(headers, body);
  if (action) return { service, operation: action };
  const [, key] = /^\/[^/]+\/(.+)$/.exec(parsed.pathname) ?? [];
  return { service, operation: `${method} ${key ? 'object' : 'bucket'}` };
}

function formAction(headers: IncomingHttpHeaders, body: Buffer): string | null {
  if (!String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return null;
  return new URLSearchParams(body.toString('utf8')).get('Action');
}
