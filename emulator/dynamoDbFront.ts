import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

export interface DynamoDbCounter {
  request(operation: string): void;
  capacity(kind: 'read' | 'write', units: number): void;
}

/**
 * The product's DynamoDB endpoint (AWS_ENDPOINT_URL_DYNAMODB) in the emulation: a pass-through to
 * dynalite that counts each request, and the capacity it consumed. Every read and write is sent
 * with ReturnConsumedCapacity TOTAL, dynalite's own sizing of the items; the units are counted,
 * and taken out of the answer again where the caller had not asked for them, so what the product
 * sees is unchanged. A Query or Scan that finds nothing is counted at DynamoDB's minimum, one read
 * (half for an eventually consistent one), which dynalite reports as zero.
 */
export function startDynamoDbFront(dynaliteEndpoint: string, counter: DynamoDbCounter): Promise<{ endpoint: string; close(): Promise<void> }> {
  const target = new URL(dynaliteEndpoint);
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const header = incoming.headers['x-amz-target'];
      const operation = typeof header === 'string' ? header.slice(header.indexOf('.') + 1) : '';
      counter.request(operation || 'unknown');
      let body = Buffer.concat(chunks);
      const request = parse(body);
      const metered = request !== null && (READS.has(operation) || WRITES.has(operation));
      const asked = metered && ['TOTAL', 'INDEXES'].includes(String(request.ReturnConsumedCapacity));
      if (metered && !asked) body = Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'TOTAL' }));
      const headers = { ...incoming.headers, host: target.host, 'content-length': String(body.length) };
      const forward = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
        (answer: IncomingMessage) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            let answerBody = Buffer.concat(answerChunks);
            const answerHeaders = { ...answer.headers };
            const parsed = metered && answer.statusCode === 200 ? parse(answerBody) : null;
            if (parsed) {
              const units = consumedUnits(parsed.ConsumedCapacity);
              const minimum = (operation === 'Query' || operation === 'Scan') && units === 0 ? (request?.ConsistentRead ? 1 : 0.5) : 0;
              counter.capacity(READS.has(operation) ? 'read' : 'write', Math.max(units, minimum));
              if (!asked) {
                delete parsed.ConsumedCapacity;
                answerBody = Buffer.from(JSON.stringify(parsed));
                answerHeaders['x-amz-crc32'] = String(crc32(answerBody));
              }
            }
            outgoing.writeHead(answer.statusCode ?? 502, { ...answerHeaders, 'content-length': String(answerBody.length) });
            outgoing.end(answerBody);
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`dynalite unreachable: ${error.message}`);
      });
      forward.end(body);
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
