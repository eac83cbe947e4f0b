import type { RefusedCall } from './awsProxy.js';
import { signalGroup, type EcsEmulator } from './ecs.js';

/** The services whose calls a fault window refuses, by the name they sign requests with. */
export const FAULTY_SERVICES = ['dynamodb', 'sqs', 's3', 'states'] as const;
export type FaultyService = (typeof FAULTY_SERVICES)[number];

export interface FaultCounts {
  /** Per service, the calls refused as throttled and as failed. */
  services: Record<FaultyService, { throttled: number; failed: number }>;
  /** Lambda invocations whose environment was killed after their handler returned. */
  lambdasKilled: number;
  /** Worker tasks killed. */
  workerTasksKilled: number;
}

export interface FaultsOptions {
  /** Whether a function serves the HTTP API or the await URL: the default target of killLambdaAfterWrite. */
  servesApi?: (functionName: string) => boolean;
  /** Draws the calls a window refuses; the specs make it predictable. */
  random?: () => number;
}

interface Window {
  kind: 'throttled' | 'failed';
  until: number;
  share: number;
}

/**
 * The faults a soak injects into aws:local (issue 32): windows in which a share of the product's
 * calls to an AWS service are refused as that service refuses them when throttled or failing
 * (answered at the fronts: awsProxy.ts, dynamoDbFront.ts, so the AWS SDK's own retries see
 * them); Lambda environments killed after their handler's writes and before its answer; ECS
 * worker tasks killed as a lost instance kills them. Everything done is counted.
 */
export class Faults {
  private readonly windows = new Map<FaultyService, Window>();
  private readonly counted: FaultCounts = {
    services: Object.fromEntries(FAULTY_SERVICES.map((service) => [service, { throttled: 0, failed: 0 }])) as FaultCounts['services'],
    lambdasKilled: 0,
    workerTasksKilled: 0,
  };
  private lambdaKills: { left: number; match: RegExp | null } = { left: 0, match: null };
  private ecs: EcsEmulator | undefined;
  private readonly servesApi: (functionName: string) => boolean;
  private readonly random: () => number;

  constructor(options: FaultsOptions = {}) {
    this.servesApi = options.servesApi ?? (() => true);
    this.random = options.random ?? Math.random;
  }

  /** For the next `forMs`, about `share` (0 to 1) of the calls to `service` are throttled. */
  throttle(service: FaultyService, forMs: number, share = 1): void {
    this.open(service, 'throttled', forMs, share);
  }

  /** For the next `forMs`, about `share` (0 to 1) of the calls to `service` fail with the service's internal error. */
  fail(service: FaultyService, forMs: number, share = 1): void {
    this.open(service, 'failed', forMs, share);
  }

  /** The next `count` invocations of the functions `match` names (default: those serving the API) die after their handler returns. */
  killLambdaAfterWrite(count: number, match?: RegExp): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`killLambdaAfterWrite: count must be a whole number of at least 0, not ${count}`);
    this.lambdaKills = { left: count, match: match ?? null };
  }

  /** SIGKILL to one running worker task's processes, picked at random; its id, or null when none runs. */
  killWorkerTask(): string | null {
    // The cluster's services are the versions' workers, v-<version> (shared/adapters/aws/taskStateChange.ts).
    const running = (this.ecs?.list() ?? []).filter((task) => task.service.startsWith('v-') && !task.stopping);
    const task = running[Math.floor(this.random() * running.length)];
    if (!task) return null;
    signalGroup(task.child, 'SIGKILL');
    this.counted.workerTasksKilled += 1;
    return task.id;
  }

  counts(): FaultCounts {
    return structuredClone(this.counted);
  }

  /** The ECS whose tasks killWorkerTask kills (it starts after the fronts that ask `refuse`). */
  attachEcs(ecs: EcsEmulator): void {
    this.ecs = ecs;
  }

  /** The answer a call to `service` gets in AWS's place while a window is open on it; null lets it through. */
  refuse(service: string): RefusedCall | null {
    const window = this.windows.get(service as FaultyService);
    if (!window || window.until <= Date.now() || this.random() >= window.share) return null;
    this.counted.services[service as FaultyService][window.kind] += 1;
    return (window.kind === 'throttled' ? THROTTLED : FAILED)[service as FaultyService];
  }

  /** Asked as each Lambda handler returns: whether its environment dies before the answer goes back. */
  killsAfterHandler(functionName: string): boolean {
    const { left, match } = this.lambdaKills;
    if (left === 0 || !(match ? functionName.search(match) >= 0 : this.servesApi(functionName))) return false;
    this.lambdaKills.left -= 1;
    this.counted.lambdasKilled += 1;
    return true;
  }

  private open(service: FaultyService, kind: Window['kind'], forMs: number, share: number): void {
    if (!FAULTY_SERVICES.includes(service)) throw new Error(`No faults for ${String(service)}: only ${FAULTY_SERVICES.join(', ')}`);
    if (!(forMs >= 0) || !(share >= 0 && share <= 1)) throw new Error(`A fault window needs forMs >= 0 and a share from 0 to 1, not ${forMs} and ${share}`);
    this.windows.set(service, { kind, until: Date.now() + forMs, share });
  }
}

/** An error of a JSON-protocol service; `queryError`: the x-amzn-query-error header of a service that once spoke the query protocol (SQS). */
function jsonError(status: number, type: string, message: string, queryError?: string): RefusedCall {
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
  if (queryError) headers['x-amzn-query-error'] = queryError;
  return { status, headers, body: { __type: type, message } };
}

function s3Error(status: number, code: string, message: string): RefusedCall {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>emulated</RequestId></Error>`;
  return { status, headers: { 'content-type': 'application/xml' }, body };
}

/**
 * What each service answers a throttled call. DynamoDB: 400 ProvisionedThroughputExceededException
 * (Developer Guide, "Error handling with DynamoDB"); SQS: RequestThrottled, 403 in its published
 * model (the SDK's client-sqs carries it); S3: 503 SlowDown; Step Functions: AWS's common 400
 * ThrottlingException. The SDK's retry strategy recognizes each name as throttling.
 */
const THROTTLED: Record<FaultyService, RefusedCall> = {
  dynamodb: jsonError(
    400,
    'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  ),
  sqs: jsonError(403, 'com.amazonaws.sqs#RequestThrottled', 'Request is throttled.', 'RequestThrottled;Sender'),
  s3: s3Error(503, 'SlowDown', 'Please reduce your request rate.'),
  states: jsonError(400, 'ThrottlingException', 'Rate exceeded'),
};

/** What each answers when it fails on its side: a 500, which the SDK retries as transient. */
const FAILED: Record<FaultyService, RefusedCall> = {
  dynamodb: jsonError(500, 'com.amazonaws.dynamodb.v20120810#InternalServerError', 'Internal server error'),
  sqs: jsonError(500, 'InternalFailure', 'The request processing has failed because of an unknown error, exception or failure.', 'InternalFailure;Receiver'),
  s3: s3Error(500, 'InternalError', 'We encountered an internal error. Please try again.'),
  states: jsonError(500, 'InternalFailure', 'The request processing has failed because of an unknown error, exception or failure.'),
};
