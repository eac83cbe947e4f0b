import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ANSWER_MARGIN_MS, InvocationDeadline } from '../../../shared/adapters/aws/invocationDeadline.js';
import { awsRetries } from '../../../shared/adapters/aws/awsRetries.js';

/**
 * The 2-hour aws:local soak's pushes met windows of failing SQS calls: the SDK's retries (about
 * 33 s at most) outlasted the push Lambda's 29 s, so the Lambda was killed mid-retry and its
 * client got API Gateway's timeout. Inside an invocation, retries now stop in time to answer.
 */
describe('AWS calls made during a Lambda invocation', () => {
  let server: Server;
  let endpoint = '';
  let requests = 0;

  beforeAll(async () => {
    // DynamoDB throttling every call, as it answers one.
    server = createServer((_request, response) => {
      requests += 1;
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (deadline: InvocationDeadline) =>
    new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, ...awsRetries(() => deadline.get()) });

  it('stop retrying in time for the invocation to answer, with the service’s error', async () => {
    const deadline = new InvocationDeadline();
    const remainingMs = ANSWER_MARGIN_MS + 2_000;
    const started = Date.now();
    requests = 0;
    const call = deadline.during({ getRemainingTimeInMillis: () => remainingMs }, () =>
      client(deadline).send(new GetItemCommand({ TableName: 'jobs', Key: { id: { S: 'job-1' } } })),
    );
    await expect(call).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(Date.now() - started).toBeLessThan(remainingMs);
    expect(requests).toBeGreaterThan(1);
    expect(deadline.get()).toBeUndefined();
  }, 20_000);

  it('keep retrying to the deadline when the wall clock steps forward mid-invocation', async () => {
    const deadline = new InvocationDeadline();
    const remainingMs = ANSWER_MARGIN_MS + 1_500;
    const started = performance.now();
    requests = 0;
    const wallClock = vi.spyOn(Date, 'now');
    try {
      const call = deadline.during({ getRemainingTimeInMillis: () => remainingMs }, async () => {
        // A minute ahead from now on, as the soak's clock jumps step a task's or a Lambda's clock.
        const stepped = Date.now() + 60_000;
        wallClock.mockImplementation(() => stepped);
        return client(deadline).send(new GetItemCommand({ TableName: 'jobs', Key: { id: { S: 'job-1' } } }));
      });
      await expect(call).rejects.toMatchObject({ name: 'ThrottlingException' });
    } finally {
      wallClock.mockRestore();
    }
    expect(requests).toBeGreaterThan(2);
    expect(performance.now() - started).toBeGreaterThan(200);
  }, 20_000);

  it('keep no deadline when this clock is already past the one Lambda set (no time left at the start)', async () => {
    const deadline = new InvocationDeadline();
    await deadline.during({ getRemainingTimeInMillis: () => 0 }, async () => {
      expect(deadline.get()).toBeUndefined();
    });
  });
});
