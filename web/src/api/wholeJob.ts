import { api } from './client.js';
import type { Job } from './types.js';

/**
 * A job with every output: one answer carries outputs up to a byte budget, and
 * `next_output_offset` says where the next read goes on (docs/api.md, "Large jobs").
 */
export async function wholeJob(id: string, init: { signal?: AbortSignal } = {}): Promise<Job> {
  const path = `/v2/jobs/${encodeURIComponent(id)}`;
  const job = await api<Job>(path, init);
  const outputs = [...(job.outputs ?? [])];
  for (let next = job.next_output_offset; next !== undefined;) {
    const more = await api<Job>(`${path}?offset=${next}`, init);
    outputs.push(...(more.outputs ?? []));
    next = more.next_output_offset;
  }
  return { ...job, outputs, next_output_offset: undefined };
}
