/**
 * Errors the services raise. The HTTP layer maps each kind to its status code;
 * the message becomes the response's `detail`.
 */
export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'timeout'
  | 'too_large'
  | 'too_many_requests'
  | 'unprocessable';

export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    // An answer to the client, never logged with a stack: capturing one cost more than the
    // rest of a refused push (a 429 under a flood).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ServiceError';
  }
}

/** Too many requests of one kind: the caller may try again after `retryAfterSeconds` (the Retry-After header). */
export class RateLimitedError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('too_many_requests', message);
    this.name = 'RateLimitedError';
  }
}

/** A validation failure in FastAPI's shape, so Sieve clients read it as they always have. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}

export const notFound = (message: string) => new ServiceError('not_found', message);
export const forbidden = (message: string) => new ServiceError('forbidden', message);
export const badRequest = (message: string) => new ServiceError('bad_request', message);
/** The request is fine, the state of what it names refuses it (409). */
export const conflict = (message: string) => new ServiceError('conflict', message);
export const tooLarge = (message: string) => new ServiceError('too_large', message);
/** Well-formed request, content the service refuses (a bundle holding a link, say): 422. */
export const unprocessable = (message: string) => new ServiceError('unprocessable', message);
/** The organization's monthly budget is spent (402). */
export const paymentRequired = (message: string) => new ServiceError('payment_required', message);
export const unauthorized = () => new ServiceError('unauthorized', 'Unauthorized - valid API Key required.');

/**
 * A write refused for lack of room: SQLite's SQLITE_FULL (better-sqlite3's `code`), and its
 * SQLITE_IOERR_SHMSIZE (the WAL index, the -shm file beside the database, could not grow), and the file
 * system's ENOSPC, or EDQUOT (a quota spent reads the same to a client). Wrapped errors carry
 * theirs in `cause`, a few levels deep at most.
 */
export function isStorageFull(error: unknown): boolean {
  return hasCauseCode(error, (code) => code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE' || code === 'ENOSPC' || code === 'EDQUOT');
}

/**
 * A write the disk refused: for lack of room (isStorageFull), or as SQLite's I/O error
 * (SQLITE_IOERR and its extended codes), which is how a full disk fails some writes (the WAL's,
 * an fsync). Moves that must come to exist are tried again on either, as once there is room.
 */
export function isStorageRefusal(error: unknown): boolean {
  return isStorageFull(error) || hasCauseCode(error, (code) => code.startsWith('SQLITE_IOERR'));
}

/** Whether the error, or one of the errors it wraps in `cause` (a few levels deep at most), has a `code` that `matches`. */
function hasCauseCode(error: unknown, matches: (code: string) => boolean): boolean {
  let cause = error;
  for (let depth = 0; depth < 5 && typeof cause === 'object' && cause !== null; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && matches(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** Throttles the AWS services Sluice calls answer as client errors (HTTP 400), by their names. */
const THROTTLES = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'RequestThrottled', 'SlowDown']);

/**
 * A call to a service Sluice runs on (DynamoDB, SQS, S3, Step Functions) refused on its side past
 * the SDK's retries: throttled, or failing (the AWS SDK marks those `$fault: 'server'`). The
 * request was fine; asked again later, it can succeed.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('$metadata' in error)) return false;
  const { $fault, name } = error as { $fault?: unknown; name?: unknown };
  return $fault === 'server' || THROTTLES.has(String(name));
}
