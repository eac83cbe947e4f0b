import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';

export interface DynaliteServer {
  /** A client for this server, with fake credentials and region so no AWS config is read. */
  client: DynamoDBClient;
  /** Where it listens, for a process that reaches it through AWS_ENDPOINT_URL_DYNAMODB. */
  endpoint: string;
  close(): Promise<void>;
}

/** An in-memory dynalite (DynamoDB for the specs and for `npm run aws:local`) on a free port of 127.0.0.1, tables active as soon as created. */
export async function startDynalite(): Promise<DynaliteServer> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
    maxAttempts: 1,
  });
  return {
    client,
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      client.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
