import { z } from 'zod';
import { BILLING_CLASSES } from '../machineTypes.js';

export const machineTypeUsageSchema = z.strictObject({ compute_seconds: z.number(), cost_dollars: z.number() });

export const usageReportWireSchema = z.strictObject({
  total_compute_seconds: z.number(),
  total_cost_dollars: z.number(),
  ...Object.fromEntries(BILLING_CLASSES.map((billingClass) => [billingClass, machineTypeUsageSchema])),
});
