import { performance } from 'node:perf_hooks';
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

type RetryStrategy = Extract<NonNullable<DynamoDBClientConfig['retryStrategy']>, { refreshRetryTokenForRetry: unknown }>;
type RetryToken = Awaited<ReturnType<RetryStrategy['acquireInitialRetryToken']>>;

/** Attempts of one AWS call, the first included. */
export const AWS_MAX_ATTEMPTS = 10;
/** The first retry's wait bound, doubled at each retry up to MAX_WAIT_MS: throttling backs off harder than a 500. */
const FIRST_WAIT_MS = { THROTTLING: 500, TRANSIENT: 100 } as const;
const MAX_WAIT_MS = 5000;

const tokenOf = (retryCount: number, delayMs: number): RetryToken => ({ getRetryCount: () => retryCount, getRetryDelay: () => delayMs });

/**
 * The retries of every AWS SDK client the product makes. The SDK's default (3 attempts within
 * a few hundred ms, then a client-wide retry quota that a burst of failures empties) gives up
 * inside the seconds a throttle or a run of 500s lasts, and the write given up on was a job's
 * end, its usage or a webhook delivery. AWS advises more attempts with exponential backoff and
 * jitter: here 10 attempts, full jitter, waits doubling up to 5 s (about 10 to 15 s in all on
 * average, at most about 33), and no shared quota: each call is bounded by its own attempts.
 * `deadline` (`performance.now()` ms; InvocationDeadline in a Lambda) stops the retries that would pass it: a
 * route Lambda's 29 s would otherwise end mid-retry, its client told nothing by API Gateway.
 */
export function awsRetries(deadline: () => number | undefined = () => undefined): { maxAttempts: number; retryStrategy: RetryStrategy } {
  return {
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryStrategy: {
      acquireInitialRetryToken: () => Promise.resolve(tokenOf(0, 0)),
      refreshRetryTokenForRetry(token, { errorType }) {
        const retries = token.getRetryCount() + 1;
        if ((errorType !== 'THROTTLING' && errorType !== 'TRANSIENT') || retries >= AWS_MAX_ATTEMPTS) return Promise.reject(new Error('no retry left'));
        const bound = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS[errorType] * 2 ** (retries - 1));
        const wait = Math.floor(Math.random() * bound);
        // A retry the caller could not wait for (a route must answer within API Gateway's 30 s):
        // the call fails now, with the service's error, which the route answers 503.
        const until = deadline();
        if (until !== undefined && performance.now() + wait >= until) return Promise.reject(new Error('no time left for a retry'));
        return Promise.resolve(tokenOf(retries, wait));
      },
      recordSuccess: () => undefined,
    },
  };
}
