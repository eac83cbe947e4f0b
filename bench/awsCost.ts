// The cost model: counted usage (emulator/usageMeter.ts) priced with the table (awsPrices.ts).
import { emptyUsage, type Usage } from '../emulator/usageMeter.js';
import { AWS_PRICES, type AwsPrices } from './awsPrices.js';

/** The services a workload's usage is billed under, in the order the bench prints them. */
export const BILLED_SERVICES = ['API Gateway', 'Lambda', 'DynamoDB', 'SQS', 'Step Functions', 'S3', 'CloudWatch Logs'] as const;
export type BilledService = (typeof BILLED_SERVICES)[number];

const GB = 1024 ** 3;

/** S3's request prices split writes and lists from reads; deletes are free. */
function s3RequestCost(operation: string, count: number, prices: AwsPrices): number {
  if (operation.startsWith('DELETE')) return 0;
  const write = /^(PUT|POST|COPY)\b/.test(operation) || operation === 'GET bucket';
  return count * (write ? prices.s3WriteRequest.usd : prices.s3ReadRequest.usd);
}

/** Requests counted for one signing service (`sqs`, `s3`, `dynamodb`), summed over its operations. */
export function requestsOf(usage: Usage, service: string): number {
  return Object.entries(usage.requests).reduce((sum, [key, count]) => (key.startsWith(`${service} `) ? sum + count : sum), 0);
}

/**
 * What `usage` costs at on-demand prices, by service. Control-plane calls (ECS, Application Auto
 * Scaling, CodeBuild's API) are free on AWS and CloudWatch's API is left unpriced: they are
 * counted, not costed.
 */
export function usageCost(usage: Usage, prices: AwsPrices = AWS_PRICES): Record<BilledService, number> {
  const lambda = Object.values(usage.lambda).reduce((sum, fn) => sum + fn.invocations * prices.lambdaRequest.usd + fn.gbSeconds * prices.lambdaGbSecond.usd, 0);
  const s3 = Object.entries(usage.requests)
    .filter(([key]) => key.startsWith('s3 '))
    .reduce((sum, [key, count]) => sum + s3RequestCost(key.slice(3), count, prices), 0);
  return {
    'API Gateway': usage.apiRequests * prices.httpApiRequest.usd,
    Lambda: lambda,
    DynamoDB: usage.dynamoDb.writeUnits * prices.dynamoDbWriteUnit.usd + usage.dynamoDb.readUnits * prices.dynamoDbReadUnit.usd,
    SQS: requestsOf(usage, 'sqs') * prices.sqsRequest.usd,
    'Step Functions': usage.stateTransitions * prices.stepFunctionsTransition.usd,
    S3: s3,
    'CloudWatch Logs': (usage.logBytes / GB) * prices.logsIngestedGb.usd,
  };
}

export const totalCost = (cost: Record<string, number>): number => Object.values(cost).reduce((sum, value) => sum + value, 0);

/** `after` less `before`, less `baseline` (usage that accrues regardless, already scaled to the same span): what a workload caused. */
export function usageBetween(before: Usage, after: Usage, baseline: Usage = emptyUsage()): Usage {
  return combine(after, [
    [before, -1],
    [baseline, -1],
  ]);
}

/** `usage` times `factor`: per job from a run's total, or a baseline rate over a span. */
export const scaleUsage = (usage: Usage, factor: number): Usage => combine(emptyUsage(), [[usage, factor]]);

function combine(base: Usage, terms: [Usage, number][]): Usage {
  const result = structuredClone(base);
  for (const [usage, factor] of terms) {
    for (const [key, count] of Object.entries(usage.requests)) result.requests[key] = (result.requests[key] ?? 0) + factor * count;
    for (const [name, fn] of Object.entries(usage.lambda)) {
      const entry = (result.lambda[name] ??= { invocations: 0, gbSeconds: 0 });
      entry.invocations += factor * fn.invocations;
      entry.gbSeconds += factor * fn.gbSeconds;
    }
    result.dynamoDb.readUnits += factor * usage.dynamoDb.readUnits;
    result.dynamoDb.writeUnits += factor * usage.dynamoDb.writeUnits;
    result.dynamoDb.indexWriteUnits += factor * usage.dynamoDb.indexWriteUnits;
    result.apiRequests += factor * usage.apiRequests;
    result.stateTransitions += factor * usage.stateTransitions;
    result.logBytes += factor * usage.logBytes;
  }
  return result;
}
