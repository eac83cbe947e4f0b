import type { PushRecord } from './history.js';
import type { StoredJob } from './finalState.js';
import type { Delivery, MoodyReceiver } from './receivers.js';

const FINAL = new Set(['finished', 'error', 'cancelled']);

/** What a receiver must have seen of an ended job: its completion (both kinds it subscribed to), its start if it started, each output it streamed. */
export function expectedEvents(record: PushRecord, job: StoredJob): string[] {
  if (!FINAL.has(job.status)) return [];
  const subscribed = new Set(record.subscribed ?? []);
  const events = ['job.complete'];
  if (subscribed.has('job.complete.no_output')) events.push('job.complete.no_output');
  if (job.startedAt !== null) events.push('job.start');
  // Named by the index the function gave the output, as deliveries are: an output a full disk
  // refused fails the job, and one yielded after it may still be stored, so positions can skip.
  if (subscribed.has('job.new_output'))
    job.outputs.forEach((output, position) => events.push(`job.new_output#${(output as { index?: number } | null)?.index ?? position}`));
  return events;
}

/** A delivery named by its event (an output's by its index too), as a receiver tells them apart. */
export function eventOf(delivery: Delivery): string {
  if (delivery.type !== 'job.new_output') return delivery.type;
  try {
    return `job.new_output#${JSON.parse(delivery.body?.body?.output ?? 'null')?.data?.index}`;
  } catch {
    return 'job.new_output#?';
  }
}

export function deliveriesByPath(receivers: MoodyReceiver[]): Map<string, Delivery[]> {
  const byPath = new Map<string, Delivery[]>();
  for (const delivery of receivers.flatMap((receiver) => receiver.deliveries)) {
    const list = byPath.get(delivery.path) ?? [];
    list.push(delivery);
    byPath.set(delivery.path, list);
  }
  return byPath;
}

/** The events still missing at the receivers, per push tag. */
export function missingEvents(records: PushRecord[], jobs: Map<string, StoredJob>, receivers: MoodyReceiver[]): Map<string, string[]> {
  const byPath = deliveriesByPath(receivers);
  const missing = new Map<string, string[]>();
  for (const record of records) {
    const job = record.id ? jobs.get(record.id) : undefined;
    if (!job) continue;
    const seen = new Set((byPath.get(`/${record.tag}`) ?? []).map(eventOf));
    const absent = expectedEvents(record, job).filter((event) => !seen.has(event));
    if (absent.length > 0) missing.set(record.tag, absent);
  }
  return missing;
}

/** Webhook ids that two different events shared, or deliveries without one: a receiver could not drop repeats by them. */
export function unstableIds(receivers: MoodyReceiver[]): string[] {
  const eventsOfId = new Map<string, Set<string>>();
  const problems: string[] = [];
  for (const delivery of receivers.flatMap((receiver) => receiver.deliveries)) {
    if (!delivery.webhookId) problems.push(`${delivery.path} ${delivery.type}: no webhook-id`);
    const events = eventsOfId.get(delivery.webhookId) ?? new Set();
    events.add(`${delivery.path} ${eventOf(delivery)}`);
    eventsOfId.set(delivery.webhookId, events);
  }
  for (const [id, events] of eventsOfId) if (id && events.size > 1) problems.push(`${id} named ${[...events].join(', ')}`);
  return problems;
}

/**
 * budget.warning, once a month per organization: the budgeted organization's receivers got it
 * under exactly one webhook-id (repeats allowed, as for any delivery), and nobody else got one.
 */
export function budgetWarningProblems(receivers: MoodyReceiver[], budgeted: string): string[] {
  const warnings = receivers.flatMap((receiver) => receiver.deliveries).filter((delivery) => delivery.type === 'budget.warning');
  const problems = warnings
    .filter((delivery) => delivery.body?.body?.organization !== budgeted || !delivery.path.startsWith(`/${budgeted}-`))
    .map((delivery) => `budget.warning for ${delivery.body?.body?.organization} at ${delivery.path}`);
  const ids = new Set(warnings.map((delivery) => delivery.webhookId));
  if (ids.size !== 1) problems.push(`budget.warning of ${budgeted} arrived under ${ids.size} webhook-ids, not 1`);
  return problems;
}
