import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a workload had AWS do, counted in the units AWS bills by. */
export interface Usage {
  /** API requests the product made, by `service Operation` (`sqs SendMessage`, `s3 PUT object`), DynamoDB's included. */
  requests: Record<string, number>;
  /**
   * DynamoDB's consumed capacity, which on-demand bills as RRU and WRU: the writes' units are the
   * tables' and their global secondary indexes' (`indexWriteUnits` of them the indexes').
   */
  dynamoDb: { readUnits: number; writeUnits: number; indexWriteUnits: number };
  /** Invocations, and duration (rounded up to the millisecond, times the function's memory) in GB-seconds, by function name. */
  lambda: Record<string, { invocations: number; gbSeconds: number }>;
  /** Requests the HTTP API (API Gateway) received; the await function URL's are Lambda invocations only. */
  apiRequests: number;
  /** Step Functions state transitions (states entered, and retries). */
  stateTransitions: number;
  /** Bytes the Lambdas and ECS tasks wrote to their logs: what CloudWatch Logs would ingest. */
  logBytes: number;
}

export const emptyUsage = (): Usage => ({
  requests: {},
  dynamoDb: { readUnits: 0, writeUnits: 0, indexWriteUnits: 0 },
  lambda: {},
  apiRequests: 0,
  stateTransitions: 0,
  logBytes: 0,
});

/**
 * The emulation's meter: every seam that AWS bills at reports here (awsProxy.ts and dynamoDbFront.ts
 * for API requests, the Lambda service, the HTTP API, Step Functions), and `usage()` reads the
 * totals since the emulation started, logs included.
 */
export class UsageMeter {
  private readonly counted = emptyUsage();

  /** `logDir`: the folder whose files stand for CloudWatch Logs (emulator/awsLocal.ts's logs/). */
  constructor(private readonly logDir?: string) {}

  request(service: string, operation: string): void {
    const key = `${service} ${operation}`;
    this.counted.requests[key] = (this.counted.requests[key] ?? 0) + 1;
  }

  capacity(kind: 'read' | 'write' | 'indexWrite', units: number): void {
    if (kind === 'read') this.counted.dynamoDb.readUnits += units;
    else this.counted.dynamoDb.writeUnits += units;
    if (kind === 'indexWrite') this.counted.dynamoDb.indexWriteUnits += units;
  }

  invocation(functionName: string, memoryMb: number, durationMs: number): void {
    const entry = (this.counted.lambda[functionName] ??= { invocations: 0, gbSeconds: 0 });
    entry.invocations += 1;
    entry.gbSeconds += (Math.ceil(durationMs) / 1000) * (memoryMb / 1024);
  }

  apiRequest(): void {
    this.counted.apiRequests += 1;
  }

  stateTransition(): void {
    this.counted.stateTransitions += 1;
  }

  usage(): Usage {
    return structuredClone({ ...this.counted, logBytes: this.logDir ? folderBytes(this.logDir) : 0 });
  }
}

function folderBytes(folder: string): number {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + statSync(join(folder, entry.name)).size, 0);
  } catch {
    return 0;
  }
}
