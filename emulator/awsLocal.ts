import { mkdirSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { createDocumentClient, createDynamoDbStore } from '../shared/adapters/aws/dynamodb/dynamoDbStore.js';
import { DEFAULT_TASK_SCALEDOWN_WINDOW_S } from '../shared/app/awsConfig.js';
import { ensureBootstrapKey, type BootstrapKey } from '../shared/app/bootstrapKey.js';
import { announceRunningEmulation } from '../cli/settings/awsLocalData.js';
import { SQS_MAX_VISIBILITY_SECONDS } from '../shared/adapters/aws/sqsJobQueue.js';
import { KeyService } from '../shared/services/keyService.js';
import { createSystemClock } from '../shared/adapters/systemClock.js';
import { apiCors, apiRoutes, corsOf, startHttpFront } from './apiGateway.js';
import { AutoScalingEmulator } from './autoScaling.js';
import { awsClients, type AwsClients, awsEnvironment, EMULATED_ACCOUNT, EMULATED_REGION } from './awsClients.js';
import { startAwsProxy, type ObservedCall } from './awsProxy.js';
import { synthesize } from './cloudAssembly.js';
import { CodeBuildEmulator } from './codeBuild.js';
import { startDynalite } from './dynalite.js';
import { startDynamoDbFront } from './dynamoDbFront.js';
import { EcsEmulator } from './ecs.js';
import { EventBridge } from './eventBridge.js';
import { Faults } from './faults.js';
import { freePort } from './freePort.js';
import { ImageRegistry } from './imageRegistry.js';
import { createResolver } from './intrinsics.js';
import { LambdaService } from './lambda/lambdaService.js';
import { lambdaFunctions } from './lambdaFunctions.js';
import { startMoto } from './moto.js';
import { provision } from './provision.js';
import { SqsVisibilityCap } from './sqsVisibilityCap.js';
import type { SqsMetricTimes } from './sqsMetrics.js';
import { StepFunctionsEmulator } from './stepFunctions.js';
import { UsageMeter, type Usage } from './usageMeter.js';
import type { WaiterConcurrency } from '../infra/waiterConcurrency.js';

export interface AwsLocalOptions {
  port: number;
  host: string;
  dataDir: string;
  /** The bootstrap key of organization `organization` (SLUICE_API_KEY); otherwise the saved one, or a new one. */
  apiKey?: string;
  organization: string;
  prefix: string;
  /** AWS's minute-long cadences (metrics, alarms, schedules) divided by this. */
  timeScale: number;
  /** When SQS's metrics reach CloudWatch, in AWS seconds (default AWS's: emulator/sqsMetrics.ts). */
  sqsMetricTimes?: SqsMetricTimes;
  python: string;
  pipArgs: string[];
  /** Added to every Lambda's environment: what the emulation must change (loopback webhooks, shorter retries). */
  lambdaEnvironment: Record<string, string>;
  /** Added to every ECS task's environment. */
  taskEnvironment: Record<string, string>;
  /** SQS's cap on a message's invisibility from its receipt (AWS: 12 hours); shortened, the workers are told too. */
  sqsMaxVisibilitySeconds?: number;
  /** Machine types whose capacity providers have no instance to give (a GPU vCPU quota of 0): their tasks wait in PROVISIONING, then stop. */
  noCapacityFor?: string[];
  /** How long such a task waits in PROVISIONING (default ECS's 30 minutes on the emulation's clock); tests shorten it. */
  provisioningTimeoutMs?: number;
  /** The account's Lambda concurrency (AWS's default 1,000); set low, a spec reaches it in seconds (emulator/lambda/concurrency.ts). */
  lambdaConcurrency?: number;
  /** The waiting functions' reserved concurrency the stacks are synthesized with (default: infra/waiterConcurrency.ts's). */
  waiterConcurrency?: WaiterConcurrency;
  onEvent: (message: string) => void;
}

export interface AwsLocal {
  url: string;
  /** The await function URL (waits up to 10 minutes), ending in `/`. */
  awaitUrl: string;
  bootstrapKey: BootstrapKey;
  ecs: EcsEmulator;
  /** The emulated services' own clients (straight to moto and dynalite), to look at what the deployment did. */
  clients: AwsClients;
  /** What the deployment had AWS do since it started, in AWS's billing units (emulator/usageMeter.ts). */
  usage(): Usage;
  /** Faults to inject while it runs: AWS calls throttled or failing, Lambdas and worker tasks killed (emulator/faults.ts). */
  faults: Faults;
  close(): Promise<void>;
}

/**
 * The AWS composition on this machine: the CDK app synthesized, its resources created in
 * moto and dynalite, its Lambdas run as frozen-between-invocations processes behind an
 * emulated API Gateway and function URL, and what AWS does on its own (ECS running tasks,
 * Application Auto Scaling, CodeBuild, EventBridge, Step Functions) done by the emulators.
 */
export async function startAwsLocal(options: AwsLocalOptions): Promise<AwsLocal> {
  const dataDir = resolvePath(options.dataDir);
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const meter = new UsageMeter(logDir);
  const cleanups: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  };
  // The functions behind the HTTP API and the await URL, known once the app is synthesized.
  const apiFunctions = new Set<string>();
  const faults = new Faults({ servesApi: (name) => apiFunctions.has(name) });
  try {
    const moto = await startMoto();
    cleanups.push(() => moto.close());
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.close());
    const dynamoDbFront = await startDynamoDbFront(
      dynalite.endpoint,
      {
        request: (operation) => meter.request('dynamodb', operation),
        capacity: (kind, units) => meter.capacity(kind, units),
      },
      () => faults.refuse('dynamodb'),
    );
    cleanups.push(() => dynamoDbFront.close());
    const clients = awsClients(moto.endpoint, dynalite.endpoint);

    let observe: (call: ObservedCall) => void = () => undefined;
    const visibilityCap = new SqsVisibilityCap(options.sqsMaxVisibilitySeconds ?? SQS_MAX_VISIBILITY_SECONDS);
    const proxy = await startAwsProxy(
      moto.endpoint,
      (call) => {
        visibilityCap.observe(call);
        observe(call);
      },
      (target, request, { service }) => faults.refuse(service) ?? visibilityCap.refuse(target, request),
      ({ service, operation }) => meter.request(service, operation),
    );
    cleanups.push(() => proxy.close());
    const environment = awsEnvironment(proxy.endpoint, dynamoDbFront.endpoint);

    const assembly = synthesize(join(dataDir, 'cdk.out'), options.prefix, { waiterConcurrency: options.waiterConcurrency });
    const lambdas = new LambdaService(
      { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment, SLUICE_LOG_LEVEL: 'info', ...options.lambdaEnvironment },
      (name) => join(logDir, `lambda-${name}.log`),
      options.lambdaConcurrency,
      (spec, durationMs) => meter.invocation(spec.name, spec.memoryMb, durationMs),
      (name) => faults.killsAfterHandler(name),
    );
    cleanups.push(() => lambdas.close());

    const physicalIds = new Map<string, string>();
    let apiUrl = '';
    let awaitUrl = '';
    const resolve = createResolver(assembly, {
      accountId: EMULATED_ACCOUNT,
      region: EMULATED_REGION,
      attribute: (logicalId, type, attribute) => {
        const created = physicalIds.get(logicalId);
        if (created && (attribute === null || attribute === 'GroupId' || attribute === 'VpcId' || attribute === 'SubnetId')) return created;
        if (type === 'AWS::ApiGatewayV2::Api' && attribute === 'ApiEndpoint') return apiUrl;
        if (type === 'AWS::Lambda::Url' && attribute === 'FunctionUrl') return awaitUrl;
        return undefined;
      },
    });
    const functionUrl = assembly.ofType('AWS::Lambda::Url')[0];
    const routes = apiRoutes(assembly, resolve);
    for (const route of routes) apiFunctions.add(route.functionName);
    const api = await startHttpFront(lambdas, routes, options.port, options.host, apiCors(assembly), () => meter.apiRequest());
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          api.server.closeAllConnections();
          api.server.close(() => done());
        }),
    );
    apiUrl = api.url;
    if (functionUrl) {
      const target = String(resolve(functionUrl.stack, functionUrl.resource.Properties?.TargetFunctionArn)).split(':').pop() as string;
      apiFunctions.add(target);
      const front = await startHttpFront(lambdas, { functionName: target }, await freePort(), options.host, corsOf(functionUrl.resource.Properties?.Cors));
      cleanups.push(
        () =>
          new Promise<void>((done) => {
            front.server.closeAllConnections();
            front.server.close(() => done());
          }),
      );
      awaitUrl = `${front.url}/`;
    }
    await provision(assembly, resolve, clients, physicalIds);
    for (const spec of lambdaFunctions(assembly, resolve)) lambdas.register(spec);

    const bus = new EventBridge(assembly, resolve, lambdas, options.onEvent);
    bus.startSchedules(options.timeScale);
    cleanups.push(() => bus.stop());
    const images = new ImageRegistry(join(dataDir, 'images'));
    const codeBuild = new CodeBuildEmulator({
      assembly,
      resolve,
      clients,
      bus,
      images,
      workDir: dataDir,
      python: options.python,
      pipArgs: options.pipArgs,
      onEvent: options.onEvent,
    });
    cleanups.push(() => codeBuild.idle());
    const stepFunctions = new StepFunctionsEmulator(assembly, resolve, lambdas, clients, options.onEvent, () => meter.stateTransition());
    cleanups.push(() => stepFunctions.stop());
    const cluster = String(resolve(assembly.ofType('AWS::ECS::Cluster')[0]?.stack ?? '', { Ref: assembly.ofType('AWS::ECS::Cluster')[0]?.logicalId ?? '' }));
    const ecs = new EcsEmulator({
      clients,
      cluster,
      images,
      awsEnvironment: environment,
      extraEnvironment: {
        // An idle task's default scale-down window, AWS's 300 s on the emulation's clock (a version's own scaledown_window is taken as it is).
        SLUICE_TASK_SCALEDOWN_WINDOW_S: String(DEFAULT_TASK_SCALEDOWN_WINDOW_S / options.timeScale),
        ...options.taskEnvironment,
        ...(options.sqsMaxVisibilitySeconds ? { SLUICE_QUEUE_MAX_VISIBILITY_S: String(options.sqsMaxVisibilitySeconds) } : {}),
      },
      logDir,
      onEvent: options.onEvent,
      noCapacity: (provider) => (options.noCapacityFor ?? []).some((machineType) => provider === `${options.prefix}${machineType}`),
      // ECS's 30 minutes in PROVISIONING, on the emulation's clock.
      provisioningTimeoutMs: options.provisioningTimeoutMs ?? (30 * 60_000) / options.timeScale,
      onTaskStopped: (detail) => bus.put({ source: 'aws.ecs', 'detail-type': 'ECS Task State Change', detail, resources: [String(detail.taskArn)] }),
    });
    await ecs.start();
    cleanups.push(() => ecs.stop());
    faults.attachEcs(ecs);
    const reconcile = () => void ecs.reconcile().catch((error: unknown) => options.onEvent(`ECS: ${(error as Error).message}`));
    const scheduler = setInterval(reconcile, 1000);
    cleanups.push(() => clearInterval(scheduler));
    const autoScaling = new AutoScalingEmulator({
      clients,
      queuePrefix: options.prefix,
      timeScale: options.timeScale,
      sqsMetricTimes: options.sqsMetricTimes,
      onEvent: options.onEvent,
      onScaled: reconcile,
    });
    autoScaling.start();
    cleanups.push(() => autoScaling.stop());

    observe = (call) => {
      options.onEvent(`${call.target} -> ${call.status}`);
      const request = call.request as Record<string, any>;
      // Any call on a queue keeps it active for SQS's metrics, a refused one too (emulator/sqsMetrics.ts).
      if (call.target.startsWith('AmazonSQS.') && typeof (request?.QueueUrl ?? request?.QueueName) === 'string')
        autoScaling.queueAccessed(request.QueueUrl ?? request.QueueName);
      if (call.status !== 200) return;
      const response = call.response as Record<string, any>;
      switch (call.target) {
        case 'CodeBuild_20161006.StartBuild':
          return codeBuild.start({
            id: response.build.id,
            arn: response.build.arn,
            projectName: request.projectName,
            overrides: request.environmentVariablesOverride ?? [],
          });
        case 'AWSStepFunctions.StartExecution':
          return stepFunctions.start({ executionArn: response.executionArn, stateMachineArn: request.stateMachineArn, input: request.input ?? '{}' });
        case 'AmazonEC2ContainerServiceV20141113.CreateService':
          ecs.noteCapacityProvider(request.serviceName, request.capacityProviderStrategy?.[0]?.capacityProvider);
          return reconcile();
        case 'AmazonEC2ContainerServiceV20141113.UpdateService':
        case 'AmazonEC2ContainerServiceV20141113.DeleteService':
          return reconcile();
      }
    };

    // The operator's part: the first key, as `sluice keys create` would make it in DynamoDB.
    const store = createDynamoDbStore({ tablePrefix: options.prefix, client: createDocumentClient(clients.dynamoDb) });
    const bootstrapKey = await ensureBootstrapKey(new KeyService(store, createSystemClock()), dataDir, options.organization, options.apiKey);
    // Where `sluice keys --data-dir <this folder>` finds that DynamoDB, while it exists.
    cleanups.push(
      announceRunningEmulation(dataDir, { dynamoDbEndpoint: dynalite.endpoint, tablePrefix: options.prefix, region: EMULATED_REGION, pid: process.pid }),
    );

    return { url: api.url, awaitUrl, bootstrapKey, ecs, clients, usage: () => meter.usage(), faults, close };
  } catch (error) {
    await close();
    throw error;
  }
}
