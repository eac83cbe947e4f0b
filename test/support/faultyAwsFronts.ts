import { startAwsProxy } from '../../emulator/awsProxy.js';
import { startDynalite } from '../../emulator/dynalite.js';
import { startDynamoDbFront } from '../../emulator/dynamoDbFront.js';
import type { Faults } from '../../emulator/faults.js';
import { startMoto } from '../../emulator/moto.js';

/**
 * dynalite and moto_server behind the emulation's fronts (dynamoDbFront.ts, awsProxy.ts), which
 * answer the calls `faults` refuses as AWS would: the endpoints a spec points its AWS clients at.
 */
export async function startFaultyAwsFronts(faults: Faults) {
  const [moto, dynalite] = await Promise.all([startMoto(), startDynalite()]);
  const front = await startDynamoDbFront(dynalite.endpoint, { request: () => undefined, capacity: () => undefined }, () => faults.refuse('dynamodb'));
  const proxy = await startAwsProxy(
    moto.endpoint,
    () => undefined,
    (_target, _request, { service }) => faults.refuse(service),
  );
  return {
    /** DynamoDB, through the front. */
    dynamoDbEndpoint: front.endpoint,
    /** SQS, S3 and the rest of moto's, through the proxy. */
    awsEndpoint: proxy.endpoint,
    /** dynalite's own client, past the faults (to create tables). */
    dynalite: dynalite.client,
    async close() {
      await front.close();
      await proxy.close();
      await dynalite.close();
      await moto.close();
    },
  };
}
