import { describe, expect, it } from 'vitest';
import { scaleUsage, totalCost, usageBetween, usageCost } from '../../bench/awsCost.js';
import { emptyUsage, type Usage } from '../../emulator/usageMeter.js';

/** A million of one job's worth of usage, with round numbers. */
const MILLION_JOBS: Usage = {
  requests: {
    'sqs SendMessage': 1e6,
    'sqs ReceiveMessage': 1e6,
    'dynamodb PutItem': 3e6,
    's3 PUT object': 1e6,
    's3 GET object': 2e6,
    's3 GET bucket': 1e6,
    's3 DELETE object': 5e6,
    'ecs UpdateService': 1e6,
  },
  dynamoDb: { readUnits: 4e6, writeUnits: 8e6, indexWriteUnits: 2e6 },
  lambda: { push: { invocations: 1e6, gbSeconds: 50_000 }, await: { invocations: 1e6, gbSeconds: 250_000 } },
  apiRequests: 2e6,
  stateTransitions: 3e6,
  logBytes: 2 * 1024 ** 3,
};

describe('the cost model: counted usage at on-demand prices', () => {
  it('prices each service by its own units, at the table’s us-east-1 prices', () => {
    const cost = usageCost(MILLION_JOBS);
    expect(cost['API Gateway']).toBeCloseTo(2.0, 9);
    // 2 M invocations at $0.20 a million, 300,000 arm64 GB-seconds at $0.0000133334.
    expect(cost.Lambda).toBeCloseTo(0.4 + 4.00002, 6);
    // 8 M WRU at $0.625 a million, 4 M RRU at $0.125 a million (the November 2024 prices).
    expect(cost.DynamoDB).toBeCloseTo(5.0 + 0.5, 9);
    expect(cost.SQS).toBeCloseTo(0.8, 9);
    expect(cost['Step Functions']).toBeCloseTo(75, 9);
    // PUT and LIST at $0.005 a thousand, GET at $0.0004 a thousand, DELETE free.
    expect(cost.S3).toBeCloseTo(5 + 0.8 + 5, 9);
    expect(cost['CloudWatch Logs']).toBeCloseTo(1.0, 9);
    expect(totalCost(cost)).toBeCloseTo(2 + 4.40002 + 5.5 + 0.8 + 75 + 10.8 + 1, 6);
  });

  it('attributes to a workload only what it caused: the run’s usage less the baseline that accrues anyway, per job', () => {
    const before = { ...emptyUsage(), requests: { 'sqs ReceiveMessage': 10 }, apiRequests: 5 };
    const after = { ...emptyUsage(), requests: { 'sqs ReceiveMessage': 40, 'sqs SendMessage': 10 }, apiRequests: 25 };
    const baseline = { ...emptyUsage(), requests: { 'sqs ReceiveMessage': 10 } };
    const perJob = scaleUsage(usageBetween(before, after, baseline), 1 / 10);
    expect(perJob.requests).toEqual({ 'sqs ReceiveMessage': 2, 'sqs SendMessage': 1 });
    expect(perJob.apiRequests).toBe(2);
  });
});
