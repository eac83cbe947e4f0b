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
  SLUICE_WEBHOOK_RETRY_BASE_MS: z.string().default('1000'),
  SLUICE_AWS_VERBOSE: z.enum(['0', '1']).default('0'),
  /** A worker task's job lease; tests shorten it so a killed task's job comes back sooner. */
  SLUICE_QUEUE_VISIBILITY_S: z.string().default('60'),
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
    python: values.SLUICE_PYTHON,
    pipArgs: values.SLUICE_PIP_ARGS.split(/\s+/).filter(Boolean),
    verbose: values.SLUICE_AWS_VERBOSE === '1',
    // On AWS, receivers are public addresses; here they are on this machine.
    lambdaEnvironment: { SLUICE_WEBHOOK_ALLOW: 'loopback', SLUICE_WEBHOOK_RETRY_BASE_MS: values.SLUICE_WEBHOOK_RETRY_BASE_MS },
    taskEnvironment: { SLUICE_QUEUE_VISIBILITY_S: values.SLUICE_QUEUE_VISIBILITY_S } as Record<string, string>,
  };
}
