import type { App, Environment } from 'aws-cdk-lib/core';
import { ROUTES } from '../shared/http/routeTable.js';
import { parseCorsOrigins } from '../shared/domain/corsOrigins.js';
import { corsPolicy } from '../shared/http/cors.js';
import type { ApiThrottle } from './apiThrottle.js';
import type { WaiterConcurrency } from './waiterConcurrency.js';
import type { WarmPoolSizes } from './warmPool.js';
import { bundleLambdaCode, bundleWorker } from './bundle.js';
import { sluiceNames, type SluiceNames } from './names.js';
import { ApiStack } from './stacks/apiStack.js';
import { BuildStack } from './stacks/buildStack.js';
import { ComputeStack } from './stacks/computeStack.js';
import { DataStack } from './stacks/dataStack.js';
import { QueuesStack } from './stacks/queuesStack.js';
import { WebhooksStack } from './stacks/webhooksStack.js';

export interface SluiceAppOptions {
  /** Every resource's name starts with it (tables, queues, bucket, cluster, ...). */
  prefix: string;
  env?: Environment;
  /** The base of URLs handed out (a custom domain); the API's own URL when absent. */
  publicUrl?: string;
  /** 1 (default) or 0: see ComputeStackProps.natGateways. */
  natGateways?: 0 | 1;
  /** Origins browsers may call the API from (default: any). */
  corsOrigins?: string[];
  /** The API's default-stage throttle (default: DEFAULT_API_THROTTLE, infra/apiThrottle.ts). */
  apiThrottle?: ApiThrottle;
  /** The waiting functions' reserved concurrency (default: DEFAULT_WAITER_CONCURRENCY, infra/waiterConcurrency.ts). */
  waiterConcurrency?: WaiterConcurrency;
  /** Stopped instances kept ready per machine type (default none): see ComputeStackProps.warmPool. */
  warmPool?: WarmPoolSizes;
}

/** The context value `sluice:corsOrigins`: `*` or comma-separated origins, as SLUICE_CORS_ORIGINS locally. */
export function parseCorsContext(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const origins = parseCorsOrigins(String(value));
  if (typeof origins === 'string') throw new Error(`sluice:corsOrigins: ${origins}`);
  return origins;
}

/** The context value `sluice:natGateways` (a string on the command line, a number in cdk.json). */
export function parseNatGateways(value: unknown): 0 | 1 | undefined {
  if (value === undefined) return undefined;
  if (String(value) === '0') return 0;
  if (String(value) === '1') return 1;
  throw new Error(`sluice:natGateways must be 0 or 1, not "${String(value)}"`);
}

export interface SluiceStacks {
  names: SluiceNames;
  data: DataStack;
  queues: QueuesStack;
  compute: ComputeStack;
  webhooks: WebhooksStack;
  api: ApiStack;
  build: BuildStack;
}

/**
 * The AWS mode's stacks, in deployment order. Stacks name each other's resources by the
 * prefix's names (infra/names.ts) rather than by reference, except where a value exists only
 * once deployed (role ARNs, subnets, the API's URL): those flow forward only (compute and
 * API into build), so there is no cycle. The explicit dependencies keep the deploy order.
 */
export function createSluiceStacks(app: App, options: SluiceAppOptions): SluiceStacks {
  const names = sluiceNames(options.prefix);
  const { env } = options;
  const codeFolder = bundleLambdaCode();

  const data = new DataStack(app, 'SluiceData', { env, tablePrefix: names.prefix, description: 'Sluice: DynamoDB tables of the store' });
  const queues = new QueuesStack(app, 'SluiceQueues', {
    env,
    names,
    description: 'Sluice: the job queues’ dead-letter queue (version queues are made at deploy time)',
  });
  const compute = new ComputeStack(app, 'SluiceCompute', {
    env,
    names,
    natGateways: options.natGateways,
    warmPool: options.warmPool,
    description: 'Sluice: VPC, ECS cluster, a capacity provider per machine type, worker roles',
  });
  const webhooks = new WebhooksStack(app, 'SluiceWebhooks', { env, names, codeFolder, description: 'Sluice: the webhook delivery state machine' });
  const cors = corsPolicy(options.corsOrigins);
  const api = new ApiStack(app, 'SluiceApi', {
    env,
    names,
    routes: ROUTES,
    codeFolder,
    cors,
    throttle: options.apiThrottle,
    waiterConcurrency: options.waiterConcurrency,
    description: 'Sluice: the Sieve v2 HTTP API and the await function URL',
  });
  const build = new BuildStack(app, 'SluiceBuild', {
    env,
    names,
    codeFolder,
    workerFolder: bundleWorker(),
    compute,
    publicUrl: options.publicUrl ?? api.url,
    cors,
    description: 'Sluice: artifacts bucket, image repository, image builds and their deployment to ECS',
  });

  compute.addStackDependency(data);
  compute.addStackDependency(queues);
  webhooks.addStackDependency(data);
  api.addStackDependency(webhooks);
  api.addStackDependency(compute);
  build.addStackDependency(api);
  return { names, data, queues, compute, webhooks, api, build };
}
