import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { injectFaults } from './faultInjector.js';
import { inParallel, readFinalState, retrying, type StoredJob } from './finalState.js';
import type { FaultRecord } from './history.js';
import { request, sleep } from './http.js';
import { checkInvariants, type InvariantRow, type SoakEvidence } from './invariants.js';
import { Random } from './random.js';
import { MoodyReceiver } from './receivers.js';
import { formatReport, type SoakFacts } from './report.js';
import { BUDGETED, OPERATOR_TOKEN, type SoakSystem } from './soakSystem.js';
import { budgetWarningProblems, missingEvents } from './webhookCheck.js';
import { Workload } from './workload.js';

const SLUICE = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
const FUNCTIONS = fileURLToPath(new URL('./functions', import.meta.url));

export interface SoakOptions {
  mode: 'local' | 'aws';
  minutes: number;
  seed: number;
  /** Concurrent clients per organization. */
  clients: number;
  /** The mean time between faults. */
  faultGapSeconds: number;
  /** Fault kinds to leave out. */
  without: string[];
  /** How long ended work may take to settle after the load stops (jobs to end, webhooks to arrive). */
  drainSeconds: number;
  workDir?: string;
}

export interface SoakResult {
  rows: InvariantRow[];
  facts: SoakFacts;
  report: string;
}

/**
 * A soak: the mode started, the soak's functions deployed by each organization, then a mixed
 * load and random faults for `minutes`; then the load stops, ended work settles, and every
 * invariant is checked against the final store and what clients and receivers saw.
 */
export async function runSoak(options: SoakOptions, startSystem: (workDir: string, random: Random) => Promise<SoakSystem>): Promise<SoakResult> {
  const random = new Random(options.seed);
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), `sluice-soak-${options.mode}-`));
  const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
  log(`mode ${options.mode}, ${options.minutes} min, seed ${options.seed}, work in ${workDir}`);
  const system = await startSystem(workDir, random);
  for (const kind of options.without) delete system.faults[kind];
  const receivers = [new MoodyReceiver(), new MoodyReceiver()];
  // Interrupted (Ctrl-C, a CI timeout): the system's processes (the service, moto_server,
  // dynalite, worker tasks and their replicas) must not outlive the soak.
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the system`);
    void system.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    for (const receiver of receivers) await receiver.start();
    for (const organization of system.organizations) await deploy(system, organization.key, workDir);
    const budget = await retrying(() =>
      request(`${system.url}/v2/operator/organizations/${BUDGETED.organization}/limits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        body: BUDGETED.limits,
      }),
    );
    // Refused, the soak would end in a budget.warning violation that names the wrong cause.
    if (budget.status !== 200) throw new Error(`setting ${BUDGETED.organization}'s budget was refused: ${budget.status} ${JSON.stringify(budget.body)}`);
    log(`deployed the soak's functions for ${system.organizations.map((organization) => organization.name).join(', ')}`);

    const startedAt = Date.now();
    let loadStopped = false;
    let drainUntil = Infinity;
    const workload = new Workload(system, system.organizations, receivers, random);
    const load = workload.run(options.clients, () => drainUntil);
    const moods = receivers.map((receiver) => receiver.misbehave(random, () => loadStopped));
    const faulting = injectFaults(system, random, options.faultGapSeconds * 1000, () => loadStopped);
    await sleep(options.minutes * 60_000);
    loadStopped = true;
    workload.stop();
    drainUntil = Date.now() + options.drainSeconds * 1000;
    log(`load stopped after ${workload.records.length} pushes; draining for up to ${options.drainSeconds} s`);
    const faults: FaultRecord[] = await faulting;
    await Promise.all(moods);
    await load;

    let jobs = await readFinalState(system, workload.records);
    const settled = () => missingEvents(workload.records, jobs, receivers).size === 0 && budgetWarningProblems(receivers, BUDGETED.organization).length === 0;
    while (!settled() && Date.now() < drainUntil) {
      await sleep(2_000);
      jobs = await readFinalState(system, workload.records);
    }
    const evidence = {
      records: workload.records,
      jobs,
      receivers,
      faults,
      ...(await billedUsage(system, startedAt)),
      fileDigests: await fileDigests(system, workload.records, jobs),
    };
    const rows = checkInvariants(evidence);
    const facts: SoakFacts = {
      mode: options.mode,
      seed: options.seed,
      minutes: (Date.now() - startedAt) / 60_000,
      evidence,
      unavailableFaults: system.unavailableFaults,
    };
    const report = formatReport(rows, facts);
    writeFileSync(join(workDir, 'report.md'), report);
    // The whole history, to look into a violation: what each client was told, each fault, and
    // what each receiver got (without the bodies); then every violation, the report's first five.
    const received = receivers.map((receiver) => receiver.deliveries.map(({ path, webhookId, type, at }) => ({ path, webhookId, type, at })));
    writeFileSync(join(workDir, 'history.json'), JSON.stringify({ records: workload.records, faults, received }, null, 1));
    const violated = rows.filter((row) => !row.held).map(({ invariant, violations }) => ({ invariant, violations }));
    writeFileSync(join(workDir, 'violations.json'), JSON.stringify(violated, null, 1));
    return { rows, facts, report };
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    for (const receiver of receivers) await receiver.close();
    await system.close();
  }
}

/** `sluice deploy` of soak/functions as the organization, as a user deploys (asynchronously: on aws:local the API runs in this process). */
async function deploy(system: SoakSystem, key: string, workDir: string): Promise<void> {
  const env = { ...process.env, SLUICE_URL: system.url, SLUICE_API_KEY: key, XDG_CONFIG_HOME: join(workDir, 'client-config') };
  await promisify(execFile)(process.execPath, [SLUICE, 'deploy', FUNCTIONS], { env, timeout: 900_000, maxBuffer: 64 << 20 }).catch((error) => {
    throw new Error(`sluice deploy failed: ${error.stdout}\n${error.stderr}`);
  });
}

/** Each organization's compute seconds, in all and by function, over a range that holds the whole soak, however far its clock jumped. */
async function billedUsage(system: SoakSystem, startedAt: number): Promise<Pick<SoakEvidence, 'billedSeconds' | 'billedByFunction'>> {
  const day = 86_400;
  const range = `start_timestamp=${Math.floor(startedAt / 1000) - day}&end_timestamp=${Math.ceil(Date.now() / 1000) + 30 * day}`;
  const billedSeconds = new Map<string, number>();
  const billedByFunction = new Map<string, Map<string, number>>();
  for (const organization of system.organizations) {
    const answer = await retrying(() => request(`${system.url}/v2/usage?${range}`, { key: organization.key }));
    billedSeconds.set(organization.name, Number(answer.body?.total_compute_seconds ?? NaN));
    const byFunction = await retrying(() => request(`${system.url}/v2/usage/function?${range}`, { key: organization.key }));
    const reports = Object.entries((byFunction.body ?? {}) as Record<string, { total_compute_seconds?: number }>);
    billedByFunction.set(organization.name, new Map(reports.map(([name, report]) => [name, Number(report.total_compute_seconds ?? NaN)])));
  }
  return { billedSeconds, billedByFunction };
}

/** What each finished `file` job's output File holds, read through its signed URL as a client downloads it. */
async function fileDigests(system: SoakSystem, records: Workload['records'], jobs: Map<string, StoredJob>): Promise<Map<string, string | null>> {
  const digests = new Map<string, string | null>();
  const files = records.filter((record) => record.kind === 'file' && record.id && jobs.get(record.id)?.status === 'finished');
  await inParallel(files, 8, async (record) => {
    const url = jobs.get(record.id!)?.rawOutputs[0]?.data?.url;
    const answer = typeof url === 'string' ? await fetch(url).catch(() => null) : null;
    // The function writes its input's SHA-256 into the File it returns.
    digests.set(record.id!, answer?.ok ? (await answer.text()).trim() : null);
  });
  return digests;
}
