import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { BundleLimits } from './domain/bundleLimits.js';
import type { BillingClass, MachineType } from './domain/machineTypes.js';
import { BILLING_CLASSES } from './domain/machineTypes.js';
import type { RestrictedKind } from './domain/networkAddress.js';
import { RESTRICTED_KINDS } from './domain/networkAddress.js';
import type { Pricing } from './domain/pricing.js';
import { DEFAULT_PRICES } from './domain/pricing.js';
import { parseCorsOrigins } from './domain/corsOrigins.js';
import { ConfigError } from './domain/configError.js';

/** Configuration from the environment; every value has a default a laptop can run with. */
const configSchema = z.object({
  SLUICE_MODE: z.enum(['local', 'aws']).default('local'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  SLUICE_DATA_DIR: z.string().default('.data'),
  SLUICE_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  SLUICE_BOOTSTRAP_ORG: z.string().default('local'),
  SLUICE_PYTHON: z.string().default('python3'),
  SLUICE_PIP_ARGS: z.string().default(''),
  SLUICE_PYTHON_INTERPRETERS: z.string().default(''),
  SLUICE_INSTALL_SYSTEM_PACKAGES: z.enum(['off', 'apt']).default('off'),
  SLUICE_ENVIRONMENTS_DIR: z.string().optional(),
  SLUICE_SANDBOX: z.enum(['auto', 'bwrap', 'off']).default('auto'),
  SLUICE_MAX_BODY_MB: z.coerce.number().positive().default(64),
  SLUICE_BODY_TIMEOUT_S: z.coerce.number().positive().default(30),
  SLUICE_MAX_UPLOAD_MB: z.coerce.number().positive().default(512),
  SLUICE_MAX_BUNDLE_UNPACKED_MB: z.coerce.number().positive().default(2048),
  SLUICE_MAX_BUNDLE_FILES: z.coerce.number().int().positive().default(20_000),
  SLUICE_MAX_OUTPUT_MB: z.coerce.number().positive().default(1),
  SLUICE_TABLE_PREFIX: z.string().default('sluice-'),
  SLUICE_AWAIT_TIMEOUT_S: z.coerce.number().positive().default(600),
  SLUICE_IDLE_TIMEOUT_S: z.coerce.number().min(0).default(60),
  SLUICE_DEFAULT_MAX_REPLICAS: z.coerce.number().int().min(1).default(1),
  SLUICE_MAX_QUEUED_PER_VERSION: z.coerce.number().int().min(1).default(10_000),
  SLUICE_EMULATE_GPUS: z.enum(['auto', 'true', 'false']).default('auto'),
  SLUICE_GPU_MACHINE_TYPE: z.enum(['t4', 'l4', 'a100', 'a100-20gb', 'v100']).optional(),
  SLUICE_PUBLIC_URL: z.url().optional(),
  SLUICE_WEBHOOK_ALLOW: z.string().optional(),
  SLUICE_INPUT_ALLOW: z.string().default(''),
  SLUICE_MAX_INPUT_MB: z.coerce.number().positive().default(1024),
  SLUICE_WEBHOOK_RETRY_BASE_MS: z.coerce.number().positive().default(1000),
  SLUICE_WEBHOOK_TIMEOUT_S: z.coerce.number().positive().default(10),
  SLUICE_CUSTOM_PRICES: z.string().default(''),
  SLUICE_CORS_ORIGINS: z.string().default('*'),
  // As long as the AWS mode keeps logs (DynamoDB TTL) and output files (S3 lifecycle).
  SLUICE_RETENTION_DAYS: z.coerce.number().positive().default(30),
  SLUICE_RETENTION_SWEEP_S: z.coerce.number().positive().default(60),
  SLUICE_FILE_URL_EXPIRES_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(3600),
  SLUICE_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SLUICE_OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SLUICE_SHUTDOWN_GRACE_S: z.coerce.number().min(0).default(30),
  SLUICE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export { ConfigError } from './domain/configError.js';

/** Settings read from the environment by their schema; every problem named, `<what>: VARIABLE: message; ...`. */
export function parseSettings<Schema extends z.ZodType>(schema: Schema, env: NodeJS.ProcessEnv, what: string): z.infer<Schema> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`${what}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
}

export interface Config {
  mode: 'local' | 'aws';
  host: string;
  port: number;
  dataDir: string;
  bootstrapApiKey: string | undefined;
  bootstrapOrganization: string;
  /** The interpreter used when a function names no python_version, and to run the inspector. */
  python: string;
  /** Extra arguments for `pip install` (an index URL, say). */
  pipArgs: string[];
  /** Interpreters for python_version besides those found on PATH, in pyenv, /usr/bin and /usr/local/bin. */
  pythonInterpreters: string[];
  /** Locally, whether missing system_packages are installed with the host's apt-get (`apt`) or only named (`off`). */
  installSystemPackages: 'off' | 'apt';
  /** Where built Python environments go (default: `envs` in the data directory); services may share one. */
  environmentsDir: string;
  /**
   * How function code (replicas and builds) is confined locally: `bwrap` requires bubblewrap,
   * `auto` uses it where it works and warns where it does not, `off` runs it unconfined.
   */
  sandbox: 'auto' | 'bwrap' | 'off';
  maxBodyBytes: number;
  /** A request's body must arrive within this, or it is answered 408. */
  bodyTimeoutMs: number;
  /** The largest code bundle a deploy takes through an upload (POST /v2/uploads). */
  maxUploadBytes: number;
  /** What a bundle may unpack to: checked at deploy, and again while a build unpacks it. */
  bundleLimits: BundleLimits;
  /** The largest output kept inline (its JSON); a larger one is stored and returned as a file. */
  maxOutputBytes: number;
  tablePrefix: string;
  logLevel: string;
  awaitTimeoutMs: number;
  idleTimeoutMs: number;
  /** Replicas a version may have when it names no maximum_replicas. */
  defaultMaxReplicas: number;
  /** Jobs a version's queue holds before a push is answered 429 (where the queue can say its depth: locally). */
  maxQueuedPerVersion: number;
  /** Grant GPU machine types without a GPU: `auto` does so on a machine with none. */
  emulateGpus: 'auto' | 'true' | 'false';
  /** The machine type this machine's GPUs serve, when their model is not one of the interface's (an H100, say). */
  gpuMachineType: MachineType | undefined;
  /** The base of URLs the service hands out (file outputs); default: where it listens. */
  publicUrl: string | undefined;
  /** Address kinds webhooks may go to besides public ones (the local mode: loopback). */
  webhookAllow: RestrictedKind[];
  /** Address kinds File input URLs may be fetched from besides public ones: none by default, in both modes. */
  inputAllow: RestrictedKind[];
  /** The largest file a File input URL may hold. */
  maxInputBytes: number;
  /** The wait before a delivery's first retry; each next one doubles it. */
  webhookRetryBaseMs: number;
  webhookTimeoutMs: number;
  pricing: Pricing;
  /** Origins a browser page may call the API from: `*` (any) or exact origins. */
  corsOrigins: string[];
  /** How long the signed URL of a File output, made each time a job is read, works without a key. */
  fileUrlExpiresS: number;
  /** Opens /metrics from other machines (as a bearer token); unset, only this machine may scrape it. */
  metricsToken: string | undefined;
  /** Opens the operator API (organizations' limits) as a bearer token; unset, that API answers 404. */
  operatorToken: string | undefined;
  /** How long a stopping service lets running jobs finish before it preempts them (they go back to the queue). */
  shutdownGraceMs: number;
  /** Locally, how long an ended job (its outputs, logs, deliveries, files) is kept after it was created. */
  retentionMicros: number;
  /** How often the local mode's retention looks for ended jobs past it. */
  retentionSweepMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = parseSettings(configSchema, env, 'Invalid configuration');
  return {
    mode: values.SLUICE_MODE,
    host: values.HOST,
    port: values.PORT,
    dataDir: resolve(values.SLUICE_DATA_DIR),
    bootstrapApiKey: values.SLUICE_API_KEY,
    bootstrapOrganization: values.SLUICE_BOOTSTRAP_ORG,
    python: values.SLUICE_PYTHON,
    pipArgs: values.SLUICE_PIP_ARGS.split(/\s+/).filter(Boolean),
    pythonInterpreters: values.SLUICE_PYTHON_INTERPRETERS.split(',')
      .map((item) => item.trim())
      .filter(Boolean),
    installSystemPackages: values.SLUICE_INSTALL_SYSTEM_PACKAGES,
    environmentsDir: resolve(values.SLUICE_ENVIRONMENTS_DIR ?? join(values.SLUICE_DATA_DIR, 'envs')),
    sandbox: values.SLUICE_SANDBOX,
    maxBodyBytes: Math.floor(values.SLUICE_MAX_BODY_MB * 1024 * 1024),
    bodyTimeoutMs: values.SLUICE_BODY_TIMEOUT_S * 1000,
    maxUploadBytes: Math.floor(values.SLUICE_MAX_UPLOAD_MB * 1024 * 1024),
    bundleLimits: { maxUnpackedBytes: Math.floor(values.SLUICE_MAX_BUNDLE_UNPACKED_MB * 1024 * 1024), maxEntries: values.SLUICE_MAX_BUNDLE_FILES },
    maxOutputBytes: Math.floor(values.SLUICE_MAX_OUTPUT_MB * 1024 * 1024),
    tablePrefix: values.SLUICE_TABLE_PREFIX,
    logLevel: values.SLUICE_LOG_LEVEL,
    awaitTimeoutMs: values.SLUICE_AWAIT_TIMEOUT_S * 1000,
    idleTimeoutMs: values.SLUICE_IDLE_TIMEOUT_S * 1000,
    defaultMaxReplicas: values.SLUICE_DEFAULT_MAX_REPLICAS,
    maxQueuedPerVersion: values.SLUICE_MAX_QUEUED_PER_VERSION,
    emulateGpus: values.SLUICE_EMULATE_GPUS,
    gpuMachineType: values.SLUICE_GPU_MACHINE_TYPE,
    publicUrl: values.SLUICE_PUBLIC_URL?.replace(/\/+$/, ''),
    // Locally, receivers on the same machine are the common case; in AWS, loopback is the Lambda itself.
    webhookAllow: parseList(values.SLUICE_WEBHOOK_ALLOW ?? (values.SLUICE_MODE === 'local' ? 'loopback' : ''), RESTRICTED_KINDS, 'SLUICE_WEBHOOK_ALLOW'),
    // Unlike a webhook, a fetched input's content comes back to the pusher: loopback is not allowed locally either.
    inputAllow: parseList(values.SLUICE_INPUT_ALLOW, RESTRICTED_KINDS, 'SLUICE_INPUT_ALLOW'),
    maxInputBytes: Math.floor(values.SLUICE_MAX_INPUT_MB * 1024 * 1024),
    webhookRetryBaseMs: values.SLUICE_WEBHOOK_RETRY_BASE_MS,
    webhookTimeoutMs: values.SLUICE_WEBHOOK_TIMEOUT_S * 1000,
    pricing: { prices: readPrices(env), customPrices: readCustomPrices(values.SLUICE_CUSTOM_PRICES) },
    corsOrigins: readCorsOrigins(values.SLUICE_CORS_ORIGINS),
    fileUrlExpiresS: values.SLUICE_FILE_URL_EXPIRES_S,
    metricsToken: values.SLUICE_METRICS_TOKEN,
    operatorToken: values.SLUICE_OPERATOR_TOKEN,
    shutdownGraceMs: values.SLUICE_SHUTDOWN_GRACE_S * 1000,
    retentionMicros: Math.round(values.SLUICE_RETENTION_DAYS * 24 * 3600 * 1_000_000),
    retentionSweepMs: values.SLUICE_RETENTION_SWEEP_S * 1000,
  };
}

function readCorsOrigins(text: string): string[] {
  const origins = parseCorsOrigins(text);
  if (typeof origins === 'string') throw new ConfigError(`Invalid configuration: SLUICE_CORS_ORIGINS: ${origins}`);
  return origins;
}

/** A comma-separated list whose items must be among `allowed`. */
function parseList<T extends string>(text: string, allowed: readonly T[], name: string): T[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = items.filter((item) => !allowed.includes(item as T));
  if (unknown.length > 0) throw new ConfigError(`Invalid configuration: ${name}: unknown ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`);
  return items as T[];
}

/** Dollars per second by billing class: SLUICE_PRICE_CPU, SLUICE_PRICE_T4, SLUICE_PRICE_A100_20GB, ... over the defaults. */
function readPrices(env: NodeJS.ProcessEnv): Record<BillingClass, number> {
  const prices = { ...DEFAULT_PRICES };
  for (const billingClass of BILLING_CLASSES) {
    const name = `SLUICE_PRICE_${billingClass.toUpperCase().replace('-', '_')}`;
    const text = env[name];
    if (text === undefined) continue;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new ConfigError(`Invalid configuration: ${name}: must be a non-negative number of dollars per second`);
    prices[billingClass] = value;
  }
  return prices;
}

/** SLUICE_CUSTOM_PRICES: `owner/name=dollars-per-second,...`; those functions are billed as "other". */
function readCustomPrices(text: string): Map<string, number> {
  const prices = new Map<string, number>();
  for (const entry of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [fn, price] = entry.split('=');
    const value = Number(price);
    if (!fn || !/^[^/]+\/[^/]+$/.test(fn) || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(`Invalid configuration: SLUICE_CUSTOM_PRICES: "${entry}" is not owner/name=dollars-per-second`);
    }
    prices.set(fn, value);
  }
  return prices;
}
