import type { PushRecord } from './history.js';
import { request, sleep } from './http.js';
import type { SoakSystem } from './soakSystem.js';

/** A job as the store has it at the end, read back through the API. */
export interface StoredJob {
  id: string;
  organization: string;
  function: string;
  status: string;
  tag: string | null;
  startedAt: number | null;
  completedAt: number | null;
  error: string | null;
  outputs: unknown[];
  /** The raw outputs (type, data), for File outputs' URLs. */
  rawOutputs: any[];
}

/** Every job of every organization, from the job list pages, with each one's full outputs read from GET /v2/jobs/{id}. */
export async function readFinalState(system: SoakSystem, records: PushRecord[]): Promise<Map<string, StoredJob>> {
  const jobs = new Map<string, StoredJob>();
  for (const organization of system.organizations) {
    for (let offset = 0; offset >= 0;) {
      const page = await retrying(() => request(`${system.url}/v2/jobs?limit=1000&offset=${offset}`, { key: organization.key }));
      for (const job of page.body.data as any[]) jobs.set(job.id, stored(job, organization.name));
      offset = page.body.next_offset ?? -1;
    }
  }
  // A list shows at most 100 outputs a job; the soak's streams are shorter, but read each acknowledged job whole anyway.
  const keyOf = new Map(system.organizations.map((organization) => [organization.name, organization.key]));
  const ids = records.filter((record) => record.id !== null && jobs.has(record.id)).map((record) => [record.id!, keyOf.get(record.organization)!] as const);
  await inParallel(ids, 8, async ([id, key]) => {
    const answer = await retrying(() => request(`${system.url}/v2/jobs/${id}`, { key }));
    if (answer.status === 200) jobs.set(id, stored(answer.body, jobs.get(id)!.organization));
  });
  return jobs;
}

function stored(job: any, organization: string): StoredJob {
  const tag = job.inputs?.tag;
  const outputs: any[] = Array.isArray(job.outputs) ? job.outputs : [];
  return {
    id: job.id,
    organization,
    function: `${job.function?.owner_name}/${job.function?.name}`,
    status: job.status,
    tag: typeof tag === 'string' ? tag : typeof tag?.data === 'string' ? tag.data : null,
    startedAt: job.started_at ? micros(job.started_at) : null,
    completedAt: job.completed_at ? micros(job.completed_at) : null,
    error: job.error ?? null,
    outputs: outputs.map((output) => output?.data),
    rawOutputs: outputs,
  };
}

/** `2024-12-15T01:41:59.195123` (UTC, microseconds) as microseconds since the epoch. */
export function micros(timestamp: string): number {
  const [whole, fraction = ''] = timestamp.split('.');
  return Date.parse(`${whole}Z`) * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6));
}

/** Asks again while the service answers 5xx or not at all (the soak's checks run after its faults, but a restart may still be settling). */
export async function retrying(send: () => Promise<Awaited<ReturnType<typeof request>>>) {
  for (let attempt = 1; ; attempt++) {
    const answer = await send().catch(() => null);
    if (answer && answer.status < 500) return answer;
    if (attempt >= 60) throw new Error(`no answer after ${attempt} tries: ${answer?.status ?? 'connection failed'}`);
    await sleep(1_000);
  }
}

export async function inParallel<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++] as T);
    }),
  );
}
