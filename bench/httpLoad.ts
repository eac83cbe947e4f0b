// A lean HTTP load generator, run as its own process (like wrk): `connections` keep-alive
// sockets, each sending one GET as soon as the previous answer has arrived, for `seconds`.
// Raw sockets and a minimal response reader, so the generator costs as little CPU as it can
// on a machine it shares with the server it measures. Prints one JSON line: requests, seconds,
// and the statuses seen.
import { connect } from 'node:net';

const [target, apiKey, connections, seconds] = [new URL(process.argv[2] as string), process.argv[3] ?? '', Number(process.argv[4]), Number(process.argv[5])];
const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nX-API-Key: ${apiKey}\r\n\r\n`);
const statuses: Record<string, number> = {};
let answered = 0;
let running = true;

/** Reads answers off one socket: the status line, content-length, and that many body bytes. */
function drive(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('connect', () => socket.write(request));
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buffered.subarray(0, headEnd).toString('latin1');
        const end = bodyEnd(head, buffered, headEnd + 4);
        if (end < 0) return;
        buffered = buffered.subarray(end);
        const status = head.slice(9, 12);
        statuses[status] = (statuses[status] ?? 0) + 1;
        answered += 1;
        if (running) socket.write(request);
        else socket.end();
      }
    });
  });
}

/** Where the answer whose head ends at `bodyStart` ends: content-length, or a chunked body's last chunk; -1 while incomplete. */
function bodyEnd(head: string, buffered: Buffer, bodyStart: number): number {
  const length = /content-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return buffered.length >= bodyStart + Number(length) ? bodyStart + Number(length) : -1;
  if (!/transfer-encoding: *chunked/i.test(head)) return bodyStart;
  // Small JSON answers: the last chunk's marker cannot occur inside them.
  const last = buffered.indexOf('0\r\n\r\n', bodyStart);
  return last < 0 ? -1 : last + 5;
}

const started = performance.now();
const drivers = Array.from({ length: connections }, () => drive());
setTimeout(() => {
  running = false;
}, seconds * 1000);
await Promise.all(drivers);
process.stdout.write(`${JSON.stringify({ requests: answered, seconds: (performance.now() - started) / 1000, statuses })}\n`);
