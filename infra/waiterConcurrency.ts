/**
 * Reserved Lambda concurrency for the functions that wait for jobs. Each await or event stream
 * holds one execution for as long as it waits (25 s on the API, up to 10 minutes on the await
 * function URL); with no reservation, enough waiters would use up the account's concurrency and
 * every other route, pushes among them, would be throttled. A reservation both caps a function
 * and keeps its share out of the pool the other functions use. Set with the context values
 * `sluice:waiterConcurrency`, `sluice:longAwaitConcurrency` and `sluice:lambdaConcurrency`
 * (docs/deploying-to-aws.md); 0 reserves nothing (waiters then share the account's pool).
 */
export interface WaiterConcurrency {
  /** Reserved for each of the API's waiting routes (API_WAITING_ROUTES). */
  api: number;
  /** Reserved for the await function URL's function. */
  longAwait: number;
}

/** The API's routes that hold their Lambda while they wait for a job (the route table's names). */
export const API_WAITING_ROUTES: readonly string[] = ['awaitJob', 'streamJobEvents', 'streamLogEvents'];

export const DEFAULT_WAITER_CONCURRENCY: WaiterConcurrency = { api: 50, longAwait: 50 };
/** AWS's default quota "Lambda concurrent executions" (new accounts may get far less until they ask). */
export const DEFAULT_LAMBDA_CONCURRENCY = 1000;
/** Lambda refuses a reservation that leaves the account fewer unreserved executions than this. */
export const MIN_UNRESERVED_CONCURRENCY = 100;

/** How much the reservations take out of the account's pool. */
export function reservedConcurrency(concurrency: WaiterConcurrency): number {
  return concurrency.api * API_WAITING_ROUTES.length + concurrency.longAwait;
}

function parseCount(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const count = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(count) || count < min)
    throw new Error(`${name} must be a whole number of at least ${min}, not "${String(value)}"`);
  return count;
}

/**
 * The reservations from the context values, refused when they would leave the account (its
 * quota `sluice:lambdaConcurrency`) under the 100 unreserved executions Lambda requires: the
 * deploy would fail there, after creating half the API stack.
 */
export function parseWaiterConcurrency(api: unknown, longAwait: unknown, accountLimit: unknown): WaiterConcurrency {
  const concurrency = {
    api: parseCount('sluice:waiterConcurrency', api, DEFAULT_WAITER_CONCURRENCY.api, 0),
    longAwait: parseCount('sluice:longAwaitConcurrency', longAwait, DEFAULT_WAITER_CONCURRENCY.longAwait, 0),
  };
  const limit = parseCount('sluice:lambdaConcurrency', accountLimit, DEFAULT_LAMBDA_CONCURRENCY, 1);
  const reserved = reservedConcurrency(concurrency);
  if (reserved > 0 && limit - reserved < MIN_UNRESERVED_CONCURRENCY) {
    throw new Error(
      `The waiting functions' reserved concurrency (${reserved}: sluice:waiterConcurrency ${concurrency.api} for each of ${API_WAITING_ROUTES.length} routes, sluice:longAwaitConcurrency ${concurrency.longAwait}) ` +
        `would leave ${limit - reserved} of the account's ${limit} Lambda concurrent executions (sluice:lambdaConcurrency) unreserved; Lambda requires at least ${MIN_UNRESERVED_CONCURRENCY}. ` +
        'Ask for a higher quota "Concurrent executions" (Service Quotas, AWS Lambda) or lower the reservations (0 reserves none).',
    );
  }
  return concurrency;
}
