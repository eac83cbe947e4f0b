/**
 * The API's default-stage throttle: every route together, in requests per second (steady rate)
 * and the burst API Gateway lets through above it; past them callers get 429. It keeps a
 * runaway client from using up the account's Lambda concurrency, which every route and the
 * service's other functions share. Set with the context values `sluice:apiThrottleRate` and
 * `sluice:apiThrottleBurst` (docs/deploying-to-aws.md).
 */
export interface ApiThrottle {
  rateLimit: number;
  burstLimit: number;
}

export const DEFAULT_API_THROTTLE: ApiThrottle = { rateLimit: 100, burstLimit: 200 };

/** A context value as cdk passes it (a string) or cdk.json holds it (a number). */
function parseLimit(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(limit) || limit < 1)
    throw new Error(`${name} must be a whole number of at least 1, not "${String(value)}"`);
  return limit;
}

/** The throttle from the context values `sluice:apiThrottleRate` and `sluice:apiThrottleBurst` (defaults: DEFAULT_API_THROTTLE). */
export function parseApiThrottle(rate: unknown, burst: unknown): ApiThrottle {
  return {
    rateLimit: parseLimit('sluice:apiThrottleRate', rate, DEFAULT_API_THROTTLE.rateLimit),
    burstLimit: parseLimit('sluice:apiThrottleBurst', burst, DEFAULT_API_THROTTLE.burstLimit),
  };
}
