import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import type { RefusedCall } from './awsProxy.js';
import { DynamoDbIndexMeter } from './dynamoDbIndexMeter.js';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const TABLE_CHANGES = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);

export interface DynamoDbCounter {
  request(operation: string): void;
  /** `indexWrite`: the units a write cost the table's global secondary indexes, beyond its table units. */
  capacity(kind: 'read' | 'write' | 'indexWrite', units: number): void;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The product's DynamoDB endpoint (AWS_ENDPOINT_URL_DYNAMODB) in the emulation: a pass-through to
 * dynalite that counts each request, and the capacity it consumed. Every read and write is sent
 * with ReturnConsumedCapacity TOTAL, dynalite's own sizing of the items; the units are counted,
 * and taken out of the answer again where the caller had not asked for them, so what the product
 * sees is unchanged. A Query or Scan that finds nothing is counted at DynamoDB's minimum, one read
 * (half for an eventually consistent one), which dynalite reports as zero. dynalite reports a
 * write's table units only: its index units are counted from the items before and after it
 * (dynamoDbIndexMeter.ts). A request `refuse` answers (a fault injected: faults.ts) is counted,
 * and dynalite never sees it.
 */
export function startDynamoDbFront(
  dynaliteEndpoint: string,
  counter: DynamoDbCounter,
  refuse: (operation: string) => RefusedCall | null = () => null,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const target = new URL(dynaliteEndpoint);
  const indexes = new DynamoDbIndexMeter(dynaliteEndpoint);
  const forward = (incoming: IncomingMessage, body: Buffer) =>
    new Promise<Answer>((resolve) => {
      const headers = { ...incoming.headers, host: target.host, 'content-length': String(body.length) };
      const sent = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: { ...answer.headers }, body: Buffer.concat(chunks) }));
      });
      sent.on('error', (error) =>
        resolve({ status: 502, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`dynalite unreachable: ${error.message}`) }),
      );
      sent.end(body);
    });

  const handle = async (incoming: IncomingMessage, body: Buffer): Promise<Answer> => {
    const header = incoming.headers['x-amz-target'];
    const operation = typeof header === 'string' ? header.slice(header.indexOf('.') + 1) : '';
    counter.request(operation || 'unknown');
    const refused = refuse(operation);
    if (refused) return { status: refused.status, headers: refused.headers, body: Buffer.from(JSON.stringify(refused.body)) };
    const request = parse(body);
    if (request && TABLE_CHANGES.has(operation) && typeof request.TableName === 'string') indexes.forget(request.TableName);
    const metered = request !== null && (READS.has(operation) || WRITES.has(operation));
    const asked = metered && ['TOTAL', 'INDEXES'].includes(String(request.ReturnConsumedCapacity));
    if (metered && !asked) body = Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'TOTAL' }));
    let answer: Answer | undefined;
    const send = async () => (answer = await forward(incoming, body)).status === 200;
    if (metered && WRITES.has(operation)) {
      const indexUnits = await indexes.measure(operation, request, send).catch(() => 0);
      if (indexUnits > 0) counter.capacity('indexWrite', indexUnits);
    }
    if (!answer) await send();
    const { status, headers } = answer as Answer;
    let answerBody = (answer as Answer).body;
    const parsed = metered && status === 200 ? parse(answerBody) : null;
    if (parsed) {
      const units = consumedUnits(parsed.ConsumedCapacity);
      const minimum = (operation === 'Query' || operation === 'Scan') && units === 0 ? (request?.ConsistentRead ? 1 : 0.5) : 0;
      counter.capacity(READS.has(operation) ? 'read' : 'write', Math.max(units, minimum));
      if (!asked) {
        delete parsed.ConsumedCapacity;
        answerBody = Buffer.from(JSON.stringify(parsed));
        headers['x-amz-crc32'] = String(crc32(answerBody));
      }
    }
    return { status, headers, body: answerBody };
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      void handle(incoming, Buffer.concat(chunks)).then(({ status, headers, body }) => {
        outgoing.writeHead(status, { ...headers, 'content-length': String(body.length) });
        outgoing.end(body);
      });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A single ConsumedCapacity, or the list the batch operations answer with. */
function consumedUnits(consumed: unknown): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum: number, entry: { CapacityUnits?: number }) => sum + (entry.CapacityUnits ?? 0), 0);
}

function parse(body: Buffer): Record<string, any> | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, any>) : null;
  } catch {
    return null;
  }
}
