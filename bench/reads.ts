// The read routes at scale: p50/p99 of every list and read over real HTTP at 10k jobs and at 1M
// (BENCH_READS_JOBS): the data directory at 10k is copied aside, then grown, and the two are
// served side by side. `npm run bench` runs it when BENCH_READS=1; `npx tsx bench/reads.ts` runs it alone.
import { cp, mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../shared/adapters/local/sqlite/sqliteStore.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import { createEmptyOrganization, growHistory, type HistoryShape } from './historySeed.js';
import { createJsonClient } from './httpClient.js';
import { startBenchService, type BenchService } from './serviceProcess.js';
import { percentile, wallMs } from './stats.js';

const SMALL = Number(process.env.BENCH_READS_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_READS_JOBS ?? 1_000_000);
/** Enough that a p99 is the tenth-slowest request, not the third: one pause of the VM moved it 3-6x. */
const SAMPLES = Number(process.env.BENCH_READS_SAMPLES ?? 1000);
/** One job a second apart at most, so a million span about twelve days: inside the default retention. */
const SPACING_MICROS = 1_000_000;
/** Rounds of every route before the measured ones: with fewer, the first phase measured the service warming up (JIT), at 10-40 ms p99. */
const WARM_UP = Number(process.env.BENCH_READS_WARM_UP ?? 150);
const P99_LIMIT_MS = 10;
const GROWTH_LIMIT = 2;

const FUNCTION = (name: string) => `import sluice

@sluice.function(name="${name}", minimum_replicas=0)
def run(text: str, count: int) -> str:
    return text
`;

type Call = ReturnType<typeof createJsonClient>;

/** Deploys a one-line function through the API (a real build), as a user would; answers its version id. */
async function deploy(call: Call, dataDir: string, name: string): Promise<string> {
  const folder = join(dataDir, `function-${name}-${Math.random().toString(36).slice(2)}`);
  await mkdir(folder);
  await writeFile(join(folder, 'main.py'), FUNCTION(name));
  const inspected = await inspectFunctions(folder, 'python3');
  if (!inspected.ok) throw new Error(inspected.errors.join('; '));
  const { body } = await call<{ version: { id: string } }>('POST', `/v2/functions/local/${name}/versions`, {
    metadata: inspected.functions[0],
    bundle: (await packDirectory(folder)).toString('base64'),
  });
  for (;;) {
    const version = (await call<WireVersion>('GET', `/v2/functions/local/${name}/versions/${body.version.id}`)).body;
    if (version.build_status === 'ready') return body.version.id;
    if (version.build_status === 'error') throw new Error(`${name} failed to build`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface RouteFigures {
  p50: number;
  p99: number;
}

/** Per service: the deepest offset a walk of each list was handed (lists named as in deepLists). */
type DeepOffsets = Record<keyof ReturnType<typeof deepLists>, number>[];

/** The lists whose last pages are read: a walk by next_offset resumes there at the cost of one page (issue 33). */
const deepLists = (shape: HistoryShape) => ({
  organization: '/v2/jobs',
  finished: '/v2/jobs?status=finished',
  function: `/v2/functions/local/${shape.busy.name}/jobs`,
});

/**
 * The deepest `next_offset` a walk of `list` by pages of 1,000 is handed before its last page:
 * the offset of a page near the end, which the service then answers as the walk's next page.
 */
async function deepOffset(call: ReturnType<typeof createJsonClient>, list: string): Promise<number> {
  let deepest = 0;
  for (let offset = 0; ;) {
    const { status, body } = await call<{ next_offset: number }>('GET', `${list}${list.includes('?') ? '&' : '?'}limit=1000&offset=${offset}`);
    if (status !== 200) throw new Error(`${list} at offset ${offset} answered ${status}`);
    if (body.next_offset === -1) return deepest;
    deepest = offset = body.next_offset;
  }
}

/** Each route's request, given the sample's number (so that reads by id vary) and the service's index. */
function routesOf(shape: HistoryShape, jobIds: string[], deep: DeepOffsets = []): [string, (i: number, service: number) => string][] {
  const pick = (i: number) => jobIds[(i * 7919) % jobIds.length] as string;
  const [v1] = shape.busy.versionIds;
  return [
    ['get job', (i) => `/v2/jobs/${pick(i)}`],
    ['function jobs', () => `/v2/functions/local/${shape.busy.name}/jobs?limit=20`],
    ['function jobs ?status=finished', () => `/v2/functions/local/${shape.busy.name}/jobs?limit=20&status=finished`],
    ['function jobs ?status=error (2.5%)', () => `/v2/functions/local/${shape.busy.name}/jobs?limit=20&status=error`],
    ['function jobs ?status=queued (none)', () => `/v2/functions/local/${shape.busy.name}/jobs?limit=20&status=queued`],
    ['rare function jobs (1%)', () => `/v2/functions/local/${shape.rare.name}/jobs?limit=20`],
    ['rare function ?status=cancelled', () => `/v2/functions/local/${shape.rare.name}/jobs?limit=20&status=cancelled`],
    ['version jobs', () => `/v2/functions/local/${shape.busy.name}/versions/${v1}/jobs?limit=20`],
    ['organization jobs', () => '/v2/jobs?limit=20'],
    ['organization jobs ?status=error', () => '/v2/jobs?limit=20&status=error'],
    ['organization jobs ?status=processing', () => '/v2/jobs?limit=20&status=processing'],
    ['organization jobs, walking 20 pages', (i) => `/v2/jobs?limit=20&offset=${(i % 20) * 20}`],
    ['empty organization jobs', () => 'EMPTY /v2/jobs?limit=20'],
    ['empty organization ?status=finished', () => 'EMPTY /v2/jobs?limit=20&status=finished'],
    ['logs by job', (i) => `/v2/logs?job_id=${pick(i)}`],
    ['logs by version', () => `/v2/logs?version_id=${v1}&limit=100`],
    ['usage (organization)', () => '/v2/usage'],
    ['usage by function', () => `/v2/usage/function/local/${shape.busy.name}`],
    ['concurrency now', () => '/v2/user/concurrency'],
    // The deepest an offset is counted (COUNTED_OFFSET_LIMIT), and a walk's page near the end.
    ['organization jobs at offset 2,000', () => '/v2/jobs?limit=20&offset=2000'],
    ['org ?status=finished at offset 2,000', () => '/v2/jobs?limit=20&status=finished&offset=2000'],
    ...(deep.length === 0
      ? []
      : ([
          ['organization jobs near the end', (_, service) => `/v2/jobs?limit=20&offset=${deep[service]?.organization}`],
          ['org ?status=finished near the end', (_, service) => `/v2/jobs?limit=20&status=finished&offset=${deep[service]?.finished}`],
          ['function jobs near the end', (_, service) => `/v2/functions/local/${shape.busy.name}/jobs?limit=20&offset=${deep[service]?.function}`],
        ] as [string, (i: number, service: number) => string][])),
  ];
}

/**
 * p50/p99 of each route on each service, one request at a time (a read's own cost, not a
 * queue's), the routes taken in turn and each request made of every service in turn: the
 * machine's other load, and its speed drifting over minutes, fall on all of them alike.
 */
async function measure(
  services: readonly BenchService[],
  emptyKey: string,
  routes: [string, (i: number, service: number) => string][],
): Promise<Map<string, RouteFigures>[]> {
  const clients = services.map((service) => ({ busy: createJsonClient(service.url, service.key, 1), empty: createJsonClient(service.url, emptyKey, 1) }));
  const times = services.map(() => new Map<string, number[]>(routes.map(([label]) => [label, []])));
  for (let i = 0; i < SAMPLES + WARM_UP; i++) {
    for (const [label, path] of routes) {
      for (const [index, client] of clients.entries()) {
        const target = path(i, index);
        const [call, url] = target.startsWith('EMPTY ') ? [client.empty, target.slice(6)] : [client.busy, target];
        const started = wallMs();
        const { status } = await call('GET', url);
        if (status !== 200) throw new Error(`${label}: ${url} answered ${status}`);
        if (i >= WARM_UP) times[index]?.get(label)?.push(wallMs() - started);
      }
    }
  }
  return times.map((ofService) => new Map([...ofService].map(([label, samples]) => [label, { p50: percentile(samples, 50), p99: percentile(samples, 99) }])));
}

/**
 * Writes the grown database out to the disk before it is read: otherwise the kernel writes the
 * million jobs' gigabytes back while the larger phase is measured, and only that phase.
 */
async function flushToDisk(dataDir: string): Promise<void> {
  for (const name of ['sluice.db', 'sluice.db-wal']) {
    const file = await open(join(dataDir, name), 'r+').catch(() => null);
    await file?.sync();
    await file?.close();
  }
}

async function databaseBytes(dataDir: string): Promise<number> {
  let bytes = 0;
  for (const name of ['sluice.db', 'sluice.db-wal']) bytes += (await stat(join(dataDir, name)).catch(() => ({ size: 0 }))).size;
  return bytes;
}

export async function benchReads(): Promise<boolean> {
  const out = (text: string) => process.stdout.write(text);
  const dataDir = await mkdtemp(join(tmpdir(), 'sluice-bench-reads-'));
  // The small history's copy, served beside the large one.
  const smallDir = `${dataDir}-small`;
  const env = { SLUICE_RETENTION_DAYS: '365' };
  try {
    out(`Reads at scale: ${SMALL} then ${LARGE} jobs (each with an output, two log lines, its usage), ${SAMPLES} sequential requests per route\n`);
    const service = await startBenchService(dataDir, env);
    const call = createJsonClient(service.url, service.key, 1);
    const busyVersions = [await deploy(call, dataDir, 'reads'), await deploy(call, dataDir, 'reads')] as [string, string];
    const rareVersion = await deploy(call, dataDir, 'rare');
    await service.stop();

    const openStore = () => createSqliteStore(join(dataDir, 'sluice.db'));
    const setup = openStore();
    const organization = await setup.organizations.getByName('local');
    const busyFunction = await setup.functions.get('local', 'reads');
    const rareFunction = await setup.functions.get('local', 'rare');
    if (!organization || !busyFunction || !rareFunction) throw new Error('the deployed functions are missing');
    const shape: HistoryShape = {
      organizationId: organization.id,
      ownerName: 'local',
      busy: { functionId: busyFunction.id, name: 'reads', versionIds: busyVersions },
      rare: { functionId: rareFunction.id, name: 'rare', versionId: rareVersion },
    };
    const now = Date.now() * 1000;
    const emptyKey = await createEmptyOrganization(setup, 'empty', now);
    await setup.close();
    // The small history is copied aside once grown, then the large one grows from it: both are
    // served at once and read in turns (measure), so neither phase gets a slower VM than the other.
    let jobIds: string[] = [];
    for (const [index, total] of [SMALL, LARGE].entries()) {
      const store = openStore();
      const grown = wallMs();
      // The larger history is older than the smaller one, so both read the same newest jobs.
      await growHistory(store, shape, index === 0 ? 0 : SMALL, total, index === 0 ? now : now - SMALL * SPACING_MICROS, SPACING_MICROS);
      if (index === 0) jobIds = (await store.jobs.listByOrganization({ organizationId: organization.id }, { limit: 1000, offset: 0 })).map((job) => job.id);
      await store.close();
      await flushToDisk(dataDir);
      const size = await databaseBytes(dataDir);
      out(
        `  grew to ${total} jobs in ${((wallMs() - grown) / 1000).toFixed(0)} s: database ${(size / 1e6).toFixed(0)} MB, ${(size / total).toFixed(0)} bytes per job; load average ${loadavg()[0]?.toFixed(1)}\n`,
      );
      if (index === 0) await cp(dataDir, smallDir, { recursive: true });
    }
    const services = [await startBenchService(smallDir, env), await startBenchService(dataDir, env)];
    const results = await (async () => {
      const walked = wallMs();
      const deep: DeepOffsets = [];
      for (const service of services) {
        const call = createJsonClient(service.url, service.key, 1);
        const lists = deepLists(shape);
        deep.push({
          organization: await deepOffset(call, lists.organization),
          finished: await deepOffset(call, lists.finished),
          function: await deepOffset(call, lists.function),
        });
      }
      out(`  walked each list to its end by next_offset in ${((wallMs() - walked) / 1000).toFixed(0)} s: ${JSON.stringify(deep)}\n`);
      return measure(services, emptyKey, routesOf(shape, jobIds, deep));
    })().finally(() => Promise.all(services.map((running) => running.stop())));
    const passes = report(results as [Map<string, RouteFigures>, Map<string, RouteFigures>], out);
    await readsWhileRetentionDeletes(dataDir, shape, emptyKey, now, out);
    return passes;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(smallDir, { recursive: true, force: true });
  }
}

/**
 * Retention at work on the large history: its older half past the retention, deleted by the
 * running service (a sweep a second) while the routes are read; prints the reads' figures and
 * how fast the backlog went.
 */
async function readsWhileRetentionDeletes(dataDir: string, shape: HistoryShape, emptyKey: string, now: number, out: (text: string) => void): Promise<void> {
  const keptDays = ((LARGE / 2) * SPACING_MICROS) / 86_400_000_000;
  const cutoff = now - (LARGE / 2) * SPACING_MICROS;
  const store = createSqliteStore(join(dataDir, 'sluice.db'));
  const backlog = () => store.retention.countEndedBefore(cutoff);
  try {
    const before = await backlog();
    const jobIds = (await store.jobs.listByOrganization({ organizationId: shape.organizationId }, { limit: 1000, offset: 0 })).map((job) => job.id);
    const service = await startBenchService(dataDir, { SLUICE_RETENTION_DAYS: String(keptDays), SLUICE_RETENTION_SWEEP_S: '1' });
    const started = wallMs();
    const [figures] = await measure([service], emptyKey, routesOf(shape, jobIds).slice(0, 12));
    const seconds = (wallMs() - started) / 1000;
    const deleted = before - (await backlog());
    await service.stop();
    out(
      `While retention deleted ${deleted} of ${before} jobs past their time in ${seconds.toFixed(0)} s (${(deleted / seconds).toFixed(0)} jobs/s, load average ${loadavg()[0]?.toFixed(1)}):\n`,
    );
    for (const [label, route] of figures ?? []) out(`  ${label.padEnd(38)}${route.p50.toFixed(2)} / ${route.p99.toFixed(2)} ms\n`);
    out(`  database ${((await databaseBytes(dataDir)) / 1e6).toFixed(0)} MB: the freed pages are reused, the file does not shrink\n\n`);
  } finally {
    await store.close();
  }
}

function report([small, large]: [Map<string, RouteFigures>, Map<string, RouteFigures>], out: (text: string) => void): boolean {
  const widths = [40, 18, 18, 10, 6];
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] as number)).join('') + '\n';
  const ms = (figures: RouteFigures) => `${figures.p50.toFixed(2)} / ${figures.p99.toFixed(2)}`;
  out('\n' + line(['route (ms, p50 / p99)', `${SMALL} jobs`, `${LARGE} jobs`, 'p99 ×', 'ok']));
  let ok = true;
  for (const [label, before] of small) {
    const after = large.get(label) as RouteFigures;
    const growth = after.p99 / before.p99;
    const passes = after.p99 < P99_LIMIT_MS && growth <= GROWTH_LIMIT;
    ok &&= passes;
    out(line([label, ms(before), ms(after), growth.toFixed(2), passes ? 'yes' : 'NO']));
  }
  out(`\nEach p99 under ${P99_LIMIT_MS} ms and growing at most ${GROWTH_LIMIT}x: ${ok ? 'yes' : 'no'} (load average now ${loadavg()[0]?.toFixed(1)})\n\n`);
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReads();
