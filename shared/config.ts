import { resolve } from 'node:path';
import { z } from 'zod';
import type { MachineType } from './domain/machineTypes.js';

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
  SLUICE_MAX_BODY_MB: z.coerce.number().positive().default(64),
  SLUICE_TABLE_PREFIX: z.string().default('sluice-'),
  SLUICE_AWAIT_TIMEOUT_S: z.coerce.number().positive().default(600),
  SLUICE_IDLE_TIMEOUT_S: z.coerce.number().min(0).default(60),
  SLUICE_DEFAULT_MAX_REPLICAS: z.coerce.number().int().min(1).default(1),
  SLUICE_EMULATE_GPUS: z.enum(['auto', 'true', 'false']).default('auto'),
  SLUICE_GPU_MACHINE_TYPE: z.enum(['t4', 'l4', 'a100', 'a100-20gb', 'v100']).optional(),
  SLUICE_PUBLIC_URL: z.url().optional(),
  SLUICE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** A setting's value is unusable; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
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
  maxBodyBytes: number;
  tablePrefix: string;
  logLevel: string;
  awaitTimeoutMs: number;
  idleTimeoutMs: number;
  /** Replicas a version may have when it names no maximum_replicas. */
  defaultMaxReplicas: number;
  /** Grant GPU machine types without a GPU: `auto` does so on a machine with none. */
  emulateGpus: 'auto' | 'true' | 'false';
  /** The machine type this machine's GPUs serve, when their model is not one of the interface's (an H100, say). */
  gpuMachineType: MachineType | undefined;
  /** The base of URLs the service hands out (file outputs); default: where it listens. */
  publicUrl: string | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  const values = parsed.data;
  return {
    mode: values.SLUICE_MODE,
    host: values.HOST,
    port: values.PORT,
    dataDir: resolve(values.SLUICE_DATA_DIR),
    bootstrapApiKey: values.SLUICE_API_KEY,
    bootstrapOrganization: values.SLUICE_BOOTSTRAP_ORG,
    python: values.SLUICE_PYTHON,
    pipArgs: values.SLUICE_PIP_ARGS.split(/\s+/).filter(Boolean),
    maxBodyBytes: Math.floor(values.SLUICE_MAX_BODY_MB * 1024 * 1024),
    tablePrefix: values.SLUICE_TABLE_PREFIX,
    logLevel: values.SLUICE_LOG_LEVEL,
    awaitTimeoutMs: values.SLUICE_AWAIT_TIMEOUT_S * 1000,
    idleTimeoutMs: values.SLUICE_IDLE_TIMEOUT_S * 1000,
    defaultMaxReplicas: values.SLUICE_DEFAULT_MAX_REPLICAS,
    emulateGpus: values.SLUICE_EMULATE_GPUS,
    gpuMachineType: values.SLUICE_GPU_MACHINE_TYPE,
    publicUrl: values.SLUICE_PUBLIC_URL?.replace(/\/+$/, ''),
  };
}
