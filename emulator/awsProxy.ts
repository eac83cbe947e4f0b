import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nameRequest, type NamedRequest } from './awsRequest.js';

/** A call the product made to an AWS API, and moto's answer. */
export interface ObservedCall {
  /** The JSON protocol's operation, `CodeBuild_20161006.StartBuild`; empty for other protocols. */
  target: string;
  request: unknown;
  status: number;
  response: unknown;
}

/** An answer the pass-through gives itself, without asking moto. */
export interface RefusedCall {
  status: number;
  headers: Record<string, string>;
  /** Sent as JSON; a string (S3's XML) as it is. */
  body: unknown;
}

export type CallObserver = (call: ObservedCall) => void;
/**
 * Answers a call in AWS's place where AWS would refuse what moto allows (a limit moto lacks, a
 * fault injected: faults.ts); null passes it on. Asked of every request: `target` is empty and
 * `request` null for the protocols other than JSON.
 */
export type CallRefuser = (target: string, request: unknown, named: NamedRequest) => RefusedCall | null;

/**
 * The endpoint the product's AWS clients talk to (AWS_ENDPOINT_URL): every request goes to
 * moto unchanged, and moto's answer comes back unchanged. Calls to the JSON-protocol
 * operations that set AWS's own machinery going (StartBuild, StartExecution, UpdateService)
 * are shown to the emulation once moto has answered them, which is when AWS would start work.
 * A call past a limit AWS enforces and moto does not is refused here, as AWS refuses it.
 * Every request, whatever its protocol, is named to `count` (awsRequest.ts) as it arrives.
 */
export function startAwsProxy(
  motoEndpoint: string,
  observe: CallObserver,
  refuse: CallRefuser = () => null,
  count: (request: NamedRequest) => void = () => undefined,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const target = new URL(motoEndpoint);
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const named = nameRequest(incoming.method ?? 'GET', incoming.url ?? '/', incoming.headers, body);
      count(named);
      const operation = incoming.headers['x-amz-target'];
      const refused = typeof operation === 'string' ? refuse(operation, parse(body), named) : refuse('', null, named);
      if (refused) {
        const answer = Buffer.from(typeof refused.body === 'string' ? refused.body : JSON.stringify(refused.body));
        outgoing.writeHead(refused.status, { ...refused.headers, 'content-length': String(answer.length) });
        return void outgoing.end(answer);
      }
      const forward = httpRequest(
        // The client's Host is kept: moto builds queue URLs from it, and the SDK sends an SQS call
        // to its QueueUrl's host, so a queue URL naming moto would take the product's SQS calls past this seam.
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
        (answer: IncomingMessage) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            const answerBody = typeof operation === 'string' ? mendMotoAnswer(operation, Buffer.concat(answerChunks)) : Buffer.concat(answerChunks);
            outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(answerBody.length) });
            outgoing.end(answerBody);
            if (typeof operation === 'string')
              observe({ target: operation, request: parse(body), status: answer.statusCode ?? 0, response: parse(answerBody) });
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`moto unreachable: ${error.message}`);
      });
      forward.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * moto's CodeBuild answers carry timestamps as ISO strings where AWS's JSON protocol has epoch
 * seconds, which the SDK refuses ("Expected real number"); they are put right here, nothing else.
 */
function mendMotoAnswer(operation: string, body: Buffer): Buffer {
  if (!operation.startsWith('CodeBuild_')) return body;
  const mend = (value: unknown, key = ''): unknown => {
    if (Array.isArray(value)) return value.map((item) => mend(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, mend(item, name)]));
    if (typeof value === 'string' && /Time$/.test(key) && !Number.isNaN(Date.parse(value))) return Date.parse(value) / 1000;
    return value;
  };
  const parsed = parse(body);
  return parsed === null ? body : Buffer.from(JSON.stringify(mend(parsed)));
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}
