import type { CloudAssembly } from './cloudAssembly.js';
import type { Resolver } from './intrinsics.js';
import { LambdaInvocationError, THROTTLED, type LambdaService } from './lambda/lambdaService.js';

/** An EventBridge event, as a rule's target receives it. */
export interface BusEvent {
  source: string;
  'detail-type': string;
  detail: Record<string, unknown>;
  resources?: string[];
}

interface Rule {
  name: string;
  pattern: Record<string, unknown> | null;
  /** rate(N minute[s]|hour[s]) in milliseconds, for scheduled rules. */
  everyMs: number | null;
  targets: { functionName: string; retryAttempts: number }[];
}

/** Lambda's own retries of an asynchronous invocation that failed. */
const ASYNC_INVOKE_RETRIES = 2;
/** A throttled asynchronous invocation is tried again after this, doubling, up to the cap. */
const THROTTLE_BACKOFF_MS = 250;
const MAX_THROTTLE_BACKOFF_MS = 5000;

/**
 * EventBridge for the rules the templates declare: events put on the bus go to the targets of
 * every rule whose pattern matches, as asynchronous invocations (retried twice on a function
 * error, as Lambda does; a throttled one later, see invokeAsync), and scheduled rules fire at their rate, divided by `timeScale`.
 * Delivery order is the order events were put, which AWS does not promise.
 */
export class EventBridge {
  private readonly rules: Rule[];
  private readonly timers: NodeJS.Timeout[] = [];
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    assembly: CloudAssembly,
    resolve: Resolver,
    private readonly lambdas: LambdaService,
    private readonly onEvent: (message: string) => void,
  ) {
    this.rules = assembly.ofType('AWS::Events::Rule').map(({ stack, logicalId, resource }) => {
      const props = resolve(stack, resource.Properties ?? {}) as Record<string, any>;
      return {
        name: props.Name ?? logicalId,
        pattern: props.EventPattern ?? null,
        everyMs: rateMs(props.ScheduleExpression),
        targets: ((props.Targets ?? []) as { Arn: string; RetryPolicy?: { MaximumRetryAttempts?: number } }[]).map((target) => ({
          functionName: target.Arn.split(':').pop() as string,
          retryAttempts: target.RetryPolicy?.MaximumRetryAttempts ?? 185,
        })),
      };
    });
  }

  /** Starts the scheduled rules: `timeScale` 60 fires a one-minute rule every second. */
  startSchedules(timeScale: number): void {
    for (const rule of this.rules) {
      if (rule.everyMs === null) continue;
      const timer = setInterval(() => this.deliver(rule, { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} }), rule.everyMs / timeScale);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
  }

  put(event: BusEvent): void {
    for (const rule of this.rules) if (rule.pattern && matches(rule.pattern, event as unknown as Record<string, unknown>)) this.deliver(rule, event);
  }

  /** Resolves once every event put so far has reached its targets (or given up). */
  settled(): Promise<void> {
    return this.chain;
  }

  private deliver(rule: Rule, event: BusEvent): void {
    const full = {
      version: '0',
      id: crypto.randomUUID(),
      account: '123456789012',
      region: 'us-east-1',
      time: new Date().toISOString(),
      resources: [],
      ...event,
    };
    for (const target of rule.targets) {
      if (!this.lambdas.has(target.functionName)) {
        this.onEvent(`EventBridge: rule ${rule.name} targets ${target.functionName}, which is not emulated`);
        continue;
      }
      this.invokeAsync(target.functionName, full, 0);
    }
  }

  /**
   * One asynchronous invocation, as Lambda's event queue runs it: a function error is retried
   * twice at once; a throttled one waits in the queue and is tried again with a backoff (on AWS
   * for up to the event's maximum age, 6 hours, without counting as a retry), in its own time so
   * that the events behind it are not held.
   */
  private invokeAsync(functionName: string, full: BusEvent, throttles: number): void {
    this.chain = this.chain.then(async () => {
      for (let attempt = 0; attempt <= ASYNC_INVOKE_RETRIES; attempt++) {
        try {
          await this.lambdas.invoke(functionName, full);
          this.onEvent(`EventBridge: ${full['detail-type']} -> ${functionName}`);
          return;
        } catch (error) {
          if (error instanceof LambdaInvocationError && error.errorType === THROTTLED && !this.stopped) {
            const timer = setTimeout(
              () => this.invokeAsync(functionName, full, throttles + 1),
              Math.min(THROTTLE_BACKOFF_MS * 2 ** throttles, MAX_THROTTLE_BACKOFF_MS),
            );
            timer.unref();
            return;
          }
          if (attempt === ASYNC_INVOKE_RETRIES) this.onEvent(`EventBridge: ${full['detail-type']} -> ${functionName} failed: ${(error as Error).message}`);
        }
      }
    });
  }
}

function rateMs(expression: unknown): number | null {
  const found = typeof expression === 'string' ? /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression) : null;
  if (!found) return null;
  const unit = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 }[found[2] as 'minute'];
  return Number(found[1]) * unit;
}

/** EventBridge's matching for the pattern forms the templates use: lists of exact values or `{ prefix }`, nested objects. */
function matches(pattern: Record<string, unknown>, value: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const actual = value[key];
    if (Array.isArray(expected))
      return expected.some((option) => (isPrefix(option) ? typeof actual === 'string' && actual.startsWith(option.prefix) : option === actual));
    if (expected && typeof expected === 'object')
      return actual !== null && typeof actual === 'object' && matches(expected as Record<string, unknown>, actual as Record<string, unknown>);
    return expected === actual;
  });
}

const isPrefix = (option: unknown): option is { prefix: string } =>
  typeof option === 'object' && option !== null && typeof (option as { prefix?: unknown }).prefix === 'string';
