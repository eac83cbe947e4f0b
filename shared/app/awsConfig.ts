import { z } from 'zod';
import { MACHINE_TYPES } from '../domain/machineTypes.js';
import type { MachineType } from '../domain/machineTypes.js';
import { ConfigError, parseSettings } from '../config.js';

/** An idle GPU task costs cents for five minutes; a cold start of one takes minutes (docs/deploying-to-aws.md, "Cold starts"). */
export const DEFAULT_TASK_SCALEDOWN_WINDOW_S = 300;

/** What the AWS mode's Lambdas and worker tasks are told by the CDK stacks, through their environment. */
const awsSchema = z.object({
  AWS_REGION: z.string().min(1),
  SLUICE_BUCKET: z.string().min(1),
  SLUICE_STATE_MACHINE_ARN: z.string().default(''),
  SLUICE_CODEBUILD_PROJECT: z.string().default(''),
  SLUICE_REPOSITORY_URI: z.string().default(''),
  SLUICE_CLUSTER: z.string().default(''),
  SLUICE_EXECUTION_ROLE_ARN: z.string().default(''),
  SLUICE_TASK_ROLE_ARN: z.string().default(''),
  SLUICE_LOG_GROUP: z.string().default(''),
  /** JSON: machine type -> capacity provider name. */
  SLUICE_CAPACITY_PROVIDERS: z.string().default('{}'),
  SLUICE_PUBLIC_URL: z.string().default(''),
  /** Where worker tasks run (awsvpc networking): comma-separated ids. */
  SLUICE_SUBNETS: z.string().default(''),
  SLUICE_SECURITY_GROUPS: z.string().default(''),
  /** How long a taken job's message stays invisible between heartbeats; a dead worker's job reappears after it. */
  SLUICE_QUEUE_VISIBILITY_S: z.coerce.number().int().min(3).max(43_200).default(60),
  /** SQS's cap on a message's invisibility from its receipt (12 hours); emulations shorten it to reach it in seconds. */
  SLUICE_QUEUE_MAX_VISIBILITY_S: z.coerce.number().int().min(10).max(43_200).default(43_200),
  /** How long an idle worker task stays for the next job, for versions that set no scaledown_window of their own. */
  SLUICE_TASK_SCALEDOWN_WINDOW_S: z.coerce.number().min(0).max(86_400).default(DEFAULT_TASK_SCALEDOWN_WINDOW_S),
});

export interface AwsConfig {
  region: string;
  bucket: string;
  stateMachineArn: string;
  codeBuildProject: string;
  repositoryUri: string;
  cluster: string;
  executionRoleArn: string;
  taskRoleArn: string;
  logGroup: string;
  capacityProviders: Partial<Record<MachineType, string>>;
  publicUrl: string;
  subnets: string[];
  securityGroups: string[];
  queueVisibilitySeconds: number;
  queueMaxVisibilitySeconds: number;
  taskScaledownWindowSeconds: number;
}

export function loadAwsConfig(env: NodeJS.ProcessEnv = process.env): AwsConfig {
  const values = parseSettings(awsSchema, env, 'Invalid AWS configuration');
  const providers = JSON.parse(values.SLUICE_CAPACITY_PROVIDERS) as Record<string, string>;
  const unknown = Object.keys(providers).filter((type) => !MACHINE_TYPES.includes(type as MachineType));
  if (unknown.length > 0) throw new ConfigError(`Invalid AWS configuration: SLUICE_CAPACITY_PROVIDERS names unknown machine types: ${unknown.join(', ')}`);
  return {
    region: values.AWS_REGION,
    bucket: values.SLUICE_BUCKET,
    stateMachineArn: values.SLUICE_STATE_MACHINE_ARN,
    codeBuildProject: values.SLUICE_CODEBUILD_PROJECT,
    repositoryUri: values.SLUICE_REPOSITORY_URI,
    cluster: values.SLUICE_CLUSTER,
    executionRoleArn: values.SLUICE_EXECUTION_ROLE_ARN,
    taskRoleArn: values.SLUICE_TASK_ROLE_ARN,
    logGroup: values.SLUICE_LOG_GROUP,
    capacityProviders: providers as Partial<Record<MachineType, string>>,
    publicUrl: values.SLUICE_PUBLIC_URL.replace(/\/+$/, ''),
    subnets: list(values.SLUICE_SUBNETS),
    securityGroups: list(values.SLUICE_SECURITY_GROUPS),
    queueVisibilitySeconds: values.SLUICE_QUEUE_VISIBILITY_S,
    queueMaxVisibilitySeconds: values.SLUICE_QUEUE_MAX_VISIBILITY_S,
    taskScaledownWindowSeconds: values.SLUICE_TASK_SCALEDOWN_WINDOW_S,
  };
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
