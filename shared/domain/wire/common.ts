import { z } from 'zod';

/** `2024-12-15T01:41:59.195000`: the only timestamp form the wire carries. */
export const timestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/, 'must be UTC ISO 8601 with six fractional digits')
  .describe('UTC, ISO 8601, six fractional digits, no zone: `2024-12-15T01:41:59.195000`.');

export const inputOutputSchema = z.strictObject({
  type: z.string(),
  name: z.string(),
  data: z.unknown(),
  description: z.string(),
  schema: z.record(z.string(), z.unknown()),
  run_id: z.string(),
  is_optional: z.boolean(),
});
export type WireInputOutput = z.infer<typeof inputOutputSchema>;

export const environmentVariableWireSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  default: z.string().nullable(),
});

export const workerCountsSchema = z.strictObject({
  starting: z.int(),
  setup: z.int(),
  active: z.int(),
  idle: z.int(),
  awaiting_resources: z.int(),
});
export type WorkerCounts = z.infer<typeof workerCountsSchema>;

export const NO_WORKERS: WorkerCounts = { starting: 0, setup: 0, active: 0, idle: 0, awaiting_resources: 0 };

export const webhookWireSchema = z.strictObject({ type: z.string(), url: z.string() });

/** Sieve's StatusResponse. */
export const statusMessageWireSchema = z.strictObject({ message: z.string() });
