import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { DynaliteTransactions, type DynaliteCall, type TransactionAnswer } from './dynaliteTransactions.js';
import { RequestGate } from './requestGate.js';

export interface DynaliteServer {
  /** A client for this server, with fake credentials and region so no AWS config is read. */
  client: DynamoDBClient;
  /** Where it listens, for a process that reaches it through AWS_ENDPOINT_URL_DYNAMODB. */
  endpoint: string;
  close(): Promise<void>;
}

/** Marks the single-item calls a transaction makes, which pass the gate the transaction holds. */
const INTERNAL_HEADER = 'x-sluice-transaction-step';

/**
 * An in-memory dynalite (DynamoDB for the specs and for `npm run aws:local`) on a free port of
 * 127.0.0.1, tables active as soon as created, with TransactWriteItems added
 * (dynaliteTransactions.ts): a transaction runs alone, every other request waiting at the gate.
 */
export async function startDynalite(): Promise<DynaliteServer> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const serve = server.listeners('request')[0] as RequestListener;
  server.removeAllListeners('request');
  const gate = new RequestGate();
  const internal = randomUUID();
  const transactions = new DynaliteTransactions();
  let port = 0;
  server.on('request', (incoming: IncomingMessage, outgoing: ServerResponse) => {
    if (incoming.headers[INTERNAL_HEADER] === internal) return void serve(incoming, outgoing);
    // A client gone before its turn must not keep the gate: its close is heard from the start.
    let gone = false;
    outgoing.once('close', () => (gone = true));
    const transaction = String(incoming.headers['x-amz-target'] ?? '').endsWith('.TransactWriteItems');
    void (async () => {
      // The body first, so that a slow sender holds no one else up at the gate.
      const body = await bodyOf(incoming);
      const release = await gate.enter(transaction);
      if (gone) return release();
      outgoing.once('close', release);
      if (!transaction) return serve(replayed(incoming, body), outgoing);
      const call = selfCall(port, signedAs(incoming.headers, internal));
      await answerTransaction(body, outgoing, (request, bytes) => transactions.transactWrite(request, bytes, call));
    })().catch(() => outgoing.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
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

type Transact = (request: Record<string, any>, bytes: number) => Promise<TransactionAnswer>;

async function bodyOf(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The request again, its body read already, as dynalite's handler reads a request. */
function replayed(incoming: IncomingMessage, body: Buffer): IncomingMessage {
  return Object.assign(Readable.from([body]), { headers: incoming.headers, method: incoming.method, url: incoming.url }) as unknown as IncomingMessage;
}

async function answerTransaction(body: Buffer, outgoing: ServerResponse, transact: Transact): Promise<void> {
  let request: Record<string, any> = {};
  try {
    request = JSON.parse(body.toString('utf8'));
  } catch {
    // An unreadable body is answered as one with no actions: a ValidationException.
  }
  const answer = await transact(request, body.length).catch((error: Error) => ({
    status: 500,
    body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: error.message },
  }));
  const text = Buffer.from(JSON.stringify(answer.body));
  outgoing.writeHead(answer.status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': String(text.length),
    'x-amz-crc32': String(crc32(text)),
    'x-amzn-requestid': randomUUID(),
  });
  outgoing.end(text);
}

/** The headers of a transaction's steps: its signature, which dynalite checks the form of, not the value. */
function signedAs(headers: IncomingHttpHeaders, internal: string): IncomingHttpHeaders {
  const { authorization, 'x-amz-date': date, 'content-type': type } = headers;
  return { authorization, 'x-amz-date': date, 'content-type': type ?? 'application/x-amz-json-1.0', [INTERNAL_HEADER]: internal };
}

/** dynalite's own calls, as the gate's holder makes them. */
function selfCall(port: number, headers: IncomingHttpHeaders): DynaliteCall {
  return (operation, payload) =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(JSON.stringify(payload));
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/',
          headers: { ...headers, 'x-amz-target': `DynamoDB_20120810.${operation}`, 'content-length': String(body.length) },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: answer.statusCode ?? 500, body: text ? JSON.parse(text) : {} });
          });
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
}
