// A push flood, run as its own process (loadGenerator.ts) like jobLoad.ts: `connections`
// keep-alive sockets, each pushing a no-op job as soon as its last push was answered, for
// `seconds`, never awaiting one. Prints one JSON line: the ids of the pushes accepted, how many
// were refused (429), the seconds it ran, and any other answer (a failure).
import { converse } from './keepAliveConnection.js';
import { driveFor } from './loadGenerator.js';
import { pushedJobId, pushRequest } from './pushRequest.js';

const [target, apiKey, connections, seconds] = [new URL(process.argv[2] as string), process.argv[3] ?? '', Number(process.argv[4]), Number(process.argv[5])];
const push = pushRequest(target, apiKey);
const accepted: string[] = [];
const failures: string[] = [];
let refused = 0;

/** One keep-alive socket: the next push as soon as the last was answered, until the time is up. */
const drive = (running: () => boolean) =>
  converse(
    target,
    () => push,
    ({ status, body }) => {
      const id = status === '200' ? pushedJobId(body.toString()) : undefined;
      if (id !== undefined) accepted.push(id);
      else if (status === '429') refused += 1;
      else failures.push(`push answered ${status}: ${body.toString().slice(0, 200)}`);
      return running() ? push : null;
    },
  );

const took = await driveFor(connections, seconds, drive);
process.stdout.write(`${JSON.stringify({ accepted, refused, failures: failures.slice(0, 5), seconds: took })}\n`);
