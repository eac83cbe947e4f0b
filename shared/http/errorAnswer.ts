import { isDependencyUnavailable, isStorageFull, RateLimitedError, ServiceError, ValidationError } from '../domain/errors.js';
import type { ErrorKind } from '../domain/errors.js';

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

/** What an error is answered with; `logAs` names the operator's log line, for the errors the client did not cause. */
export interface ErrorAnswer {
  status: number;
  body: { detail: unknown };
  headers?: Record<string, string>;
  logAs?: string;
}

export const STORAGE_FULL_DETAIL =
  "The service's disk is full: nothing of this request was stored. Try again once its operator has freed space in the data directory.";

export const DEPENDENCY_UNAVAILABLE_DETAIL =
  'A service Sluice depends on is failing or throttling requests. Try again shortly; a push retried with the same Idempotency-Key makes at most one job.';
/** Throttles and brownouts of AWS services last seconds. */
const DEPENDENCY_RETRY_AFTER_S = 2;

/**
 * The one mapping of errors to answers, for routes and raw endpoints alike: service errors with
 * their status, validation errors as 422 with field paths, a full disk as 507 (the request
 * was fine, the service cannot store it now: RFC 4918's Insufficient Storage), an AWS service
 * failing past the SDK's retries as 503 with Retry-After, anything else as a 500 whose cause
 * goes to the log only.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof ValidationError) return { status: 422, body: { detail: error.issues } };
  if (error instanceof ServiceError) {
    const headers = error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : undefined;
    return { status: STATUS_BY_KIND[error.kind], body: { detail: error.message }, headers };
  }
  if (isStorageFull(error)) return { status: 507, body: { detail: STORAGE_FULL_DETAIL }, logAs: 'request refused: the disk is full' };
  if (isDependencyUnavailable(error))
    return {
      status: 503,
      body: { detail: DEPENDENCY_UNAVAILABLE_DETAIL },
      headers: { 'retry-after': String(DEPENDENCY_RETRY_AFTER_S) },
      logAs: 'request failed: a service it depends on is unavailable',
    };
  return { status: 500, body: { detail: 'Internal server error.' }, logAs: 'request failed' };
}
