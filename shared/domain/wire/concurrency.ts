import { z } from 'zod';
import { timestampSchema } from './common.js';

export const concurrencyInfoWireSchema = z.strictObject({
  max_concurrency: z.int(),
  num_current: z.int(),
  num_processing: z.int(),
  num_queued: z.int(),
  num_limited: z.int(),
});

export const concurrencyStatsWireSchema = z.array(
  z.strictObject({
    chunk_start: timestampSchema,
    chunk_end: timestampSchema,
    num_jobs: z.int(),
    median_processing_time_seconds: z.number(),
    average_concurrency: z.number(),
  }),
);
