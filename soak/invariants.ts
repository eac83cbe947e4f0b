import type { FaultRecord, PushRecord } from './history.js';
import type { StoredJob } from './finalState.js';
import { isDeepStrictEqual } from 'node:util';
import { budgetWarningProblems, missingEvents, unstableIds } from './webhookCheck.js';
import { BUDGETED } from './soakSystem.js';
import type { MoodyReceiver } from './receivers.js';

export interface InvariantRow {
  invariant: string;
  held: boolean;
  /** The count it was checked over, and the first violations when it did not hold. */
  detail: string;
  /** Every violation (the report shows the first five; violations.json all of them). */
  violations: string[];
}

export interface SoakEvidence {
  records: PushRecord[];
  jobs: Map<string, StoredJob>;
  receivers: MoodyReceiver[];
  faults: FaultRecord[];
  /** Each organization's total compute seconds as /v2/usage reports them. */
  billedSeconds: Map<string, number>;
  /** The same by function (`owner/name`), as /v2/usage/function reports them: where a difference lies. */
  billedByFunction: Map<string, Map<string, number>>;
  /** The digest each `file` job's output holds, read from its File URL (null when it could not be read). */
  fileDigests: Map<string, string | null>;
}

const FINAL = new Set(['finished', 'error', 'cancelled']);
const row = (invariant: string, violations: string[], checked: string): InvariantRow => ({
  invariant,
  violations,
  held: violations.length === 0,
  detail: violations.length === 0 ? checked : `${violations.length} violations: ${violations.slice(0, 5).join('; ')}`,
});

/** The invariants of issue 32, each checked against the final store and everything clients and receivers saw. */
export function checkInvariants(evidence: SoakEvidence): InvariantRow[] {
  return [
    onePushOneJob(evidence),
    oneTerminalState(evidence),
    outputsExact(evidence),
    webhooksDelivered(evidence),
    billedOnce(evidence),
    idempotentRetries(evidence),
    recovered(evidence),
  ];
}

function onePushOneJob({ records, jobs }: SoakEvidence): InvariantRow {
  const byTag = new Map<string, StoredJob[]>();
  for (const job of jobs.values()) if (job.tag && !job.tag.includes('/')) byTag.set(job.tag, [...(byTag.get(job.tag) ?? []), job]);
  const violations: string[] = [];
  for (const record of records) {
    const found = byTag.get(record.tag) ?? [];
    if (record.id !== null && (found.length !== 1 || found[0]!.id !== record.id))
      violations.push(`${record.tag}: told ${record.id}, store has [${found.map((job) => job.id).join(', ')}]`);
    if (record.id === null && found.length > 1) violations.push(`${record.tag}: never acknowledged, store has ${found.length} jobs`);
  }
  const tags = new Set(records.map((record) => record.tag));
  for (const [tag, found] of byTag) if (!tags.has(tag)) violations.push(`${tag}: ${found.length} jobs no client pushed`);
  const acknowledged = records.filter((record) => record.id !== null).length;
  return row('every accepted push has exactly one job', violations, `${acknowledged} acknowledged pushes, ${records.length - acknowledged} never acknowledged`);
}

function oneTerminalState({ records, jobs }: SoakEvidence): InvariantRow {
  const violations = [...jobs.values()].filter((job) => !FINAL.has(job.status)).map((job) => `${job.id} (${job.tag}) left ${job.status}`);
  for (const record of records) {
    const job = record.id ? jobs.get(record.id) : undefined;
    for (const told of record.told)
      if (job && told.status !== job.status) violations.push(`${record.tag}: ${told.via} said ${told.status} (${told.error ?? ''}), store says ${job.status}`);
  }
  return row(
    'every job ended in exactly one terminal state (none queued or processing)',
    violations,
    `${jobs.size} jobs, ${records.reduce((sum, record) => sum + record.told.length, 0)} terminal answers compared`,
  );
}

/** What a finished job of each kind must hold, exactly: numbered or derived from its inputs. */
function expectedOutputs(record: PushRecord, job: StoredJob, evidence: SoakEvidence): unknown[] | null {
  const tag = record.tag;
  switch (record.kind) {
    case 'stream':
      return Array.from({ length: record.count ?? 0 }, (_, index) => ({ tag, index }));
    case 'file':
      return evidence.fileDigests.get(job.id) === record.digest ? job.outputs : [`a file holding ${record.digest}`];
    default:
      return null; // echo, sleep, workflow: checked by shape below
  }
}

/** A File output's URL is signed afresh at each read: two reads of one File agree on its name. */
const comparable = (outputs: unknown[]) =>
  outputs.map((output: any) => (output && typeof output === 'object' && typeof output.url === 'string' ? { file: output.name } : output));
const same = (a: unknown[], b: unknown[]) => isDeepStrictEqual(comparable(a), comparable(b));

function outputsExact(evidence: SoakEvidence): InvariantRow {
  const violations: string[] = [];
  let compared = 0;
  for (const record of evidence.records) {
    const job = record.id ? evidence.jobs.get(record.id) : undefined;
    if (!job || job.status !== 'finished') continue;
    compared += 1;
    const expected = expectedOutputs(record, job, evidence);
    if (expected && !isDeepStrictEqual(job.outputs, expected)) violations.push(`${record.tag}: store has ${JSON.stringify(job.outputs).slice(0, 120)}`);
    if (!expected && (job.outputs.length !== 1 || (job.outputs[0] as any)?.tag !== record.tag))
      violations.push(`${record.tag}: store has ${JSON.stringify(job.outputs).slice(0, 120)}`);
    for (const told of record.told)
      if (told.outputs && !same(told.outputs, job.outputs))
        violations.push(`${record.tag}: ${told.via} gave ${told.outputs.length} outputs, store ${job.outputs.length}`);
    if (record.streamedOutputs && !same(record.streamedOutputs, job.outputs))
      violations.push(
        `${record.tag}: the event stream gave ${record.streamedOutputs.length} outputs over ${record.resumes} resumes, store ${job.outputs.length}`,
      );
  }
  return row('no output duplicated or lost (store, await, event streams across reconnections)', violations, `${compared} finished jobs' outputs compared`);
}

function webhooksDelivered({ records, jobs, receivers }: SoakEvidence): InvariantRow {
  const missing = missingEvents(records, jobs, receivers);
  const violations = [...missing].map(([tag, events]) => `${tag}: ${events.join(', ')} never arrived`);
  violations.push(...unstableIds(receivers), ...budgetWarningProblems(receivers, BUDGETED.organization));
  const deliveries = receivers.reduce((sum, receiver) => sum + receiver.deliveries.length, 0);
  const distinct = new Set(receivers.flatMap((receiver) => receiver.deliveries.map((delivery) => delivery.webhookId))).size;
  return row(
    'every webhook event of every ended job delivered at least once, with a stable webhook-id; budget.warning once',
    violations,
    `${deliveries} deliveries arrived, ${distinct} distinct ids (${deliveries - distinct} repeats dropped by id)`,
  );
}

function billedOnce({ jobs, billedSeconds, billedByFunction }: SoakEvidence): InvariantRow {
  const violations: string[] = [];
  const ran = new Map<string, number>();
  const ranByFunction = new Map<string, number>();
  for (const job of jobs.values()) {
    if (job.startedAt === null || job.completedAt === null) continue;
    // As billing counts it: a span is never negative (a cancel racing a start, stamped by two machines' clocks).
    const seconds = Math.max(0, job.completedAt - job.startedAt) / 1e6;
    const ofFunction = `${job.organization} ${job.function}`;
    ran.set(job.organization, (ran.get(job.organization) ?? 0) + seconds);
    ranByFunction.set(ofFunction, (ranByFunction.get(ofFunction) ?? 0) + seconds);
  }
  // Each job's seconds are printed to the microsecond: allow that rounding, nothing more.
  const differs = (billed: number, seconds: number) => Math.abs(billed - seconds) > 1e-6 * jobs.size + 1e-3;
  const summary: string[] = [];
  for (const [organization, billed] of billedSeconds) {
    const seconds = ran.get(organization) ?? 0;
    summary.push(`${organization} ${billed.toFixed(3)} s billed / ${seconds.toFixed(3)} s run`);
    if (!differs(billed, seconds)) continue;
    // Which functions the difference lies in: a job missing from the lists, or billed for another span.
    const functions = [...(billedByFunction.get(organization) ?? [])]
      .map(([name, billedOfFunction]) => [name, billedOfFunction, ranByFunction.get(`${organization} ${name}`) ?? 0] as const)
      .filter(([, billedOfFunction, ranOfFunction]) => differs(billedOfFunction, ranOfFunction))
      .map(([name, billedOfFunction, ranOfFunction]) => `${name} billed ${billedOfFunction.toFixed(3)} s, ran ${ranOfFunction.toFixed(3)} s`);
    violations.push(`${organization}: billed ${billed} s, its jobs ran ${seconds} s${functions.length > 0 ? ` (${functions.join('; ')})` : ''}`);
  }
  return row('usage billed once per job (the usage report equals the sum of the jobs)', violations, summary.join('; '));
}

function idempotentRetries({ records }: SoakEvidence): InvariantRow {
  const retried = records.filter((record) => record.answeredIds.length > 1 || (record.id !== null && record.refusals.length > 0));
  const violations = retried
    .filter((record) => new Set(record.answeredIds).size > 1)
    .map((record) => `${record.tag}: one key answered ${[...new Set(record.answeredIds)].join(', ')}`);
  return row('an idempotent push retried gives one job', violations, `${retried.length} pushes retried or repeated with their key`);
}

function recovered({ faults }: SoakEvidence): InvariantRow {
  const never = faults
    .filter((fault) => fault.recoverySeconds === null)
    .map((fault) => `${fault.kind} at ${new Date(fault.at).toISOString()}: ${fault.detail}`);
  const worst = Math.max(0, ...faults.map((fault) => fault.recoverySeconds ?? 0));
  return row('the service answers within its latency budget again after each fault', never, `${faults.length} faults; within ${worst} s of each`);
}
