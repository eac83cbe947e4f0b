import { z } from 'zod';
import { inputOutputSchema, timestampSchema } from './common.js';

export const JOB_STATUSES = ['queued', 'processing', 'error', 'finished', 'cancelled'] as const;

export const jobWireSchema = z.strictObject({
  id: z.string(),
  function_id: z.string(),
  organization_id: z.string(),
  function: z.strictObject({ name: z.string(), owner_name: z.string() }),
  status: z.enum(JOB_STATUSES),
  created_at: timestampSchema.nullable(),
  started_at: timestampSchema.nullable(),
  completed_at: timestampSchema.nullable(),
  error: z.string().nullable(),
  visibility: z.enum(['public', 'private']),
  run_id: z.string().nullable(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.array(z.union([inputOutputSchema, z.array(inputOutputSchema)])).optional(),
  children: z.record(z.string(), z.unknown()).optional(),
  restarts: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
});
export type WireJob = z.infer<typeof jobWireSchema>;

export const jobPageWireSchema = z.strictObject({ data: z.array(jobWireSchema), next_offset: z.int() });

export const pushResultWireSchema = z.strictObject({
  id: z.string(),
  run_id: z.string(),
  stream_output: z.boolean(),
  status: z.enum(JOB_STATUSES),
  organization_id: z.string(),
  model_id: z.string(),
  workflow_id: z.string().nullable(),
});
