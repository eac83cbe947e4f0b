import type { JobRecord } from './job.js';
import type { Micros } from './time.js';

export interface ConcurrencyChunk {
  start: Micros;
  end: Micros;
  jobs: number;
  medianProcessingSeconds: number;
  averageConcurrency: number;
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Historical concurrency as Sieve estimates it: [start, end) cut into chunks of `chunkMicros`
 * (the last one shorter when the range ends first); each chunk counts the jobs created in it,
 * the median time they spent processing (started to completed; jobs that never ran count
 * only in the number), and estimates the concurrency as jobs × median ÷ the chunk's length.
 */
export function concurrencyChunks(jobs: JobRecord[], start: Micros, end: Micros, chunkMicros: number): ConcurrencyChunk[] {
  // Each job falls in one chunk, by index: one pass over the jobs, whatever the number of chunks.
  const count = Math.max(0, Math.ceil((end - start) / chunkMicros));
  const byChunk: JobRecord[][] = Array.from({ length: count }, () => []);
  for (const job of jobs) {
    if (job.createdAt >= start && job.createdAt < end) byChunk[Math.floor((job.createdAt - start) / chunkMicros)]?.push(job);
  }
  const chunks: ConcurrencyChunk[] = [];
  for (let index = 0; index < count; index++) {
    const chunkStart = start + index * chunkMicros;
    const chunkEnd = Math.min(chunkStart + chunkMicros, end);
    const inChunk = byChunk[index] as JobRecord[];
    const processing = inChunk.flatMap((job) => (job.startedAt !== null && job.completedAt !== null ? [(job.completedAt - job.startedAt) / 1e6] : []));
    const medianProcessingSeconds = median(processing);
    chunks.push({
      start: chunkStart,
      end: chunkEnd,
      jobs: inChunk.length,
      medianProcessingSeconds,
      averageConcurrency: (inChunk.length * medianProcessingSeconds) / ((chunkEnd - chunkStart) / 1e6),
    });
  }
  return chunks;
}
