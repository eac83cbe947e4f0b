import { z } from 'zod';
import { parseSettings } from '../shared/config.js';

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  SLUICE_DATA_DIR: z.string().default('.data-aws'),
  SLUICE_API_KEY: z.string().min(16).optional(),
  SLUICE_BOOTSTRAP_ORG: z.string().default('local'),
  SLUICE_TABLE_PREFIX: z.string().default('sluice-'),
  SLUICE_PYTHON: z.string().default('python3'),
  SLUICE_PIP_ARGS: z.string().default(''),
  /** AWS's minute-long cadences (metrics, alarms, schedules) run this many times faster. */
  SLUICE_AWS_TIME_SCALE: z.coerce.number().positive().default(60),
  /** SQS's metrics in CloudWatch, in AWS seconds (scaled): a minute's datapoint seen this late; none for a queue idle this long; back this long after it wakes (emulator/sqsMetrics.ts). */
  SLUICE_AWS_SQS_METRIC_DELAY_S: z.coerce.number().min(0).default(60),
  SLUICE_AWS_SQS_IDLE_S: z.coerce.number().positive().default(21_600),
  SLUICE_AWS_SQS_WAKE_S: z.coerce.number().min(0).default(900),
  SLUICE_WEBHOOK_RETRY_BASE_MS: z.string().default('1000'),
  SLUICE_AWS_VERBOSE: z.enum(['0', '1']).default('0'),
  /** A worker task's job lease; tests shorten it so a killed task's job comes back sooner. */
  SLUICE_QUEUE_VISIBILITY_S: z.string().default('60'),
  /** SQS's 12-hour cap on a message's invisibility from its receipt; shortened to reach it in seconds. */
  /** Machine types (comma-separated) whose tasks find no instance, as with an EC2 vCPU quota of 0: they wait in PROVISIONING, then stop. */
  SLUICE_AWS_NO_CAPACITY: z.string().default(''),
  SLUICE_AWS_SQS_MAX_VISIBILITY_S: z.coerce.number().int().min(10).max(43_200).default(43_200),
  /** The account's Lambda concurrent executions (AWS's default 1,000), and the waiting functions' reservation (each; default the stack's): lowered, throttling is reached in seconds. */
  SLUICE_AWS_LAMBDA_CONCURRENCY: z.coerce.number().int().min(1).default(1000),
  SLUICE_AWS_WAITER_CONCURRENCY: z.coerce.number().int().min(0).optional(),
});

/** `npm run aws:local`'s settings: the same variables as `npm start`, and the emulation's own. */
export function awsLocalSettings(env: NodeJS.ProcessEnv) {
  const values = parseSettings(schema, env, 'Invalid configuration');
  return {
    port: values.PORT,
    host: values.HOST,
    dataDir: values.SLUICE_DATA_DIR,
    apiKey: values.SLUICE_API_KEY,
    organization: values.SLUICE_BOOTSTRAP_ORG,
    prefix: values.SLUICE_TABLE_PREFIX,
    timeScale: values.SLUICE_AWS_TIME_SCALE,
    sqsMetricTimes: {
      delaySeconds: values.SLUICE_AWS_SQS_METRIC_DELAY_S,
      idleSeconds: values.SLUICE_AWS_SQS_IDLE_S,
      wakeSeconds: values.SLUICE_AWS_SQS_WAKE_S,
    },
    python: values.SLUICE_PYTHON,
    pipArgs: values.SLUICE_PIP_ARGS.split(/\s+/).filter(Boolean),
    verbose: values.SLUICE_AWS_VERBOSE === '1',
    // On AWS, receivers are public addresses; here they are on this machine.
    lambdaEnvironment: { SLUICE_WEBHOOK_ALLOW: 'loopback', SLUICE_WEBHOOK_RETRY_BASE_MS: values.SLUICE_WEBHOOK_RETRY_BASE_MS },
    sqsMaxVisibilitySeconds: values.SLUICE_AWS_SQS_MAX_VISIBILITY_S,
    noCapacityFor: values.SLUICE_AWS_NO_CAPACITY.split(',')
      .map((type) => type.trim())
      .filter(Boolean),
    lambdaConcurrency: values.SLUICE_AWS_LAMBDA_CONCURRENCY,
    waiterConcurrency:
      values.SLUICE_AWS_WAITER_CONCURRENCY === undefined
        ? undefined
        : { api: values.SLUICE_AWS_WAITER_CONCURRENCY, longAwait: values.SLUICE_AWS_WAITER_CONCURRENCY },
    taskEnvironment: { SLUICE_QUEUE_VISIBILITY_S: values.SLUICE_QUEUE_VISIBILITY_S } as Record<string, string>,
  };
}
