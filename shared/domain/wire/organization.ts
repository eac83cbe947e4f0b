import { z } from 'zod';

/** The organization an API key belongs to. */
export const organizationWireSchema = z.strictObject({ id: z.string(), name: z.string() });
