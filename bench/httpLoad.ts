// A lean HTTP load generator, run as its own process (like wrk): `connections` keep-alive
// sockets, each sending one GET as soon as the previous answer has arrived, for `seconds`.
// Raw sockets and a minimal response reader (answerReader.ts), so the generator costs as little
// CPU as it can on a machine it shares with the server it measures. Started through
// loadGenerator.ts; prints one JSON line: requests, seconds, and the statuses seen.
import { converse } from './keepAliveConnection.js';
import { driveFor } from './loadGenerator.js';

const [target, apiKey, connections, seconds] = [new URL(process.argv[2] as string), process.argv[3] ?? '', Number(process.argv[4]), Number(process.argv[5])];
const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nX-API-Key: ${apiKey}\r\n\r\n`);
const statuses: Record<string, number> = {};
let answered = 0;

/** One keep-alive socket: the next GET as soon as an answer has arrived, until the time is up. */
const drive = (running: () => boolean) =>
  converse(
    target,
    () => request,
    ({ status }) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      answered += 1;
      return running() ? request : null;
    },
  );

const took = await driveFor(connections, seconds, drive);
process.stdout.write(`${JSON.stringify({ requests: answered, seconds: took, statuses })}\n`);
