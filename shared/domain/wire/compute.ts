import { z } from 'zod';

/** Keyed by machine type (`cpu`, `t4`, ...): whether this deployment can run it, and how. */
export const computeAvailabilityWireSchema = z.record(
  z.string(),
  z.strictObject({ available: z.boolean(), gpu: z.boolean(), gpus: z.int().nullable(), emulated: z.boolean(), capacity_provider: z.string().nullable() }),
);
