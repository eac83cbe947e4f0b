// A lean job load generator, run as its own process (through loadGenerator.ts) like httpLoad.ts:
// `connections` keep-alive sockets, each pushing the headline job (POST /v2/push, bench/pushRequest.ts), then awaiting it
// (GET /v2/jobs/{id}/await), then the next, until `total` jobs have ended (after `warmup` unmeasured
// ones, before it says it is ready), once per run it is told to go. Raw sockets and the
// minimal response reader (answerReader.ts), so the generator's CPU does not depress the
// throughput it measures on a machine it shares with the service. A job that does not end
// `finished` (or a push that is refused) is a failure. Prints one JSON line a run: jobs, seconds,
// failures so far (and the first few), and the generator's own CPU microseconds during the run.
import { converse } from './keepAliveConnection.js';
import { awaitGo } from './loadGenerator.js';
import { pushedJobId, pushRequest } from './pushRequest.js';

const [target, apiKey, connections, total, warmup, body] = [
  new URL(process.argv[2] as string),
  process.argv[3] ?? '',
  Number(process.argv[4]),
  Number(process.argv[5]),
  Number(process.argv[6] ?? 0),
  process.argv[7],
];
const headers = `Host: ${target.host}\r\nX-API-Key: ${apiKey}\r\n`;
// The push's body (JSON) when given, else the headline job's.
const push = body === undefined ? pushRequest(target, apiKey) : pushRequest(target, apiKey, JSON.parse(body));
const awaitJob = (id: string) => `GET /v2/jobs/${id}/await HTTP/1.1\r\n${headers}\r\n`;
const MAX_REPORTED_FAILURES = 5;
let claimed = 0;
let ended = 0;
const failures: string[] = [];

/** `connections` keep-alive sockets until `jobs` have ended (failures are kept: a warm-up's too). */
async function run(jobs: number): Promise<void> {
  [claimed, ended] = [0, 0];
  await Promise.all(Array.from({ length: connections }, () => drive(jobs)));
}

/** One keep-alive socket: push, await, and again, while jobs remain to be claimed. */
function drive(jobs: number): Promise<void> {
  /** The job whose await is in flight; none while a push is. */
  let awaiting: string | undefined;
  const next = () => {
    if (claimed >= jobs) return null;
    claimed += 1;
    return push;
  };
  const end = (failure?: string) => {
    ended += 1;
    if (failure !== undefined) failures.push(failure);
    return next();
  };
  return converse(target, next, ({ status, body }) => {
    const text = body.toString();
    if (awaiting === undefined) {
      const id = status.startsWith('2') ? pushedJobId(text) : undefined;
      if (id === undefined) return end(`push answered ${status}: ${text.slice(0, 200)}`);
      awaiting = id;
      return awaitJob(id);
    }
    const id = awaiting;
    awaiting = undefined;
    // A job's own status comes before its children's.
    const jobStatus = /"status":"([^"]*)"/.exec(text)?.[1];
    return end(status === '200' && jobStatus === 'finished' ? undefined : `job ${id}: await answered ${status}, status ${jobStatus ?? text.slice(0, 200)}`);
  });
}

// Warm-up jobs first, on the same code: the measured run finds this process's JIT as warm as the
// service's (the BullMQ side's client is the bench process, warm from its own warm-up).
if (warmup > 0) await run(warmup);
// One measured run of `total` jobs per `go` (the bench alternates them with BullMQ's).
while (await awaitGo()) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run(total);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const report = {
    jobs: ended,
    seconds,
    failures: failures.length,
    firstFailures: failures.slice(0, MAX_REPORTED_FAILURES),
    cpuMicros: used.user + used.system,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
