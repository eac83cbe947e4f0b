/**
 * Cross-origin access for browsers: which origins may call the API, and the headers that say
 * so. Any origin by default: the API key travels in an explicit header, never a cookie, so a
 * page on another origin holds no credential the browser would add for it.
 *
 * One policy, applied the same way by the local gateway and, on AWS, by API Gateway (the
 * HTTP API's CorsConfiguration, built from it in infra/stacks/apiStack.ts and read back by the
 * emulator's API Gateway).
 */
export interface CorsPolicy {
  /** `*`, or exact origins such as `https://app.example.com`. */
  allowOrigins: readonly string[];
  allowMethods: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeS: number;
}

/** Every method the API serves, uploads' PUT included. */
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;
/** Last-Event-ID resumes an event stream; Idempotency-Key makes a push safe to retry. */
export const CORS_ALLOW_HEADERS = ['X-API-Key', 'Content-Type', 'Authorization', 'Last-Event-ID', 'Idempotency-Key'] as const;
/** Headers a page may read beyond the CORS-safelisted ones: how long to back off, a file's name, a redirect's target. */
export const CORS_EXPOSE_HEADERS = ['Retry-After', 'Content-Disposition', 'Content-Length', 'Location'] as const;
/** A day: API Gateway's largest max age. */
export const CORS_MAX_AGE_S = 86_400;

/** The policy for SLUICE_CORS_ORIGINS's origins (comma-separated; default any). */
export function corsPolicy(allowOrigins: readonly string[] = ['*']): CorsPolicy {
  return { allowOrigins, allowMethods: CORS_ALLOW_METHODS, allowHeaders: CORS_ALLOW_HEADERS, exposeHeaders: CORS_EXPOSE_HEADERS, maxAgeS: CORS_MAX_AGE_S };
}

/** The Access-Control-Allow-Origin value for a request from `origin`, or null when it is not allowed. */
function allowedOrigin(policy: CorsPolicy, origin: string | undefined): string | null {
  if (policy.allowOrigins.includes('*')) return '*';
  return origin !== undefined && policy.allowOrigins.includes(origin) ? origin : null;
}

/** The headers every answer carries, errors included. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  const allowed = allowedOrigin(policy, origin);
  // Filled in rather than spread: every answer makes one, and spreads cost microseconds here.
  const headers: Record<string, string> = {};
  // With a list of origins the answer depends on the request's Origin: caches must keep them apart.
  if (!policy.allowOrigins.includes('*')) headers.vary = 'Origin';
  if (allowed === null) return headers;
  headers['access-control-allow-origin'] = allowed;
  headers['access-control-expose-headers'] = policy.exposeHeaders.join(', ');
  return headers;
}

/** The answer to a preflight (OPTIONS): what a request from `origin` may use, and for how long. */
export function preflightHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  const headers = corsHeaders(policy, origin);
  if (!headers['access-control-allow-origin']) return headers;
  return {
    ...headers,
    'access-control-allow-methods': policy.allowMethods.join(', '),
    'access-control-allow-headers': policy.allowHeaders.join(', '),
    'access-control-max-age': String(policy.maxAgeS),
  };
}
