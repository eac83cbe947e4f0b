import { z } from 'zod';

/** Every error but a validation failure: `{"detail": "..."}`. */
export const errorWireSchema = z.strictObject({ detail: z.string() });

/** A validation failure (422), in FastAPI's shape: each issue's place (`["body", "inputs", "text"]`), message and kind. */
export const validationErrorWireSchema = z.strictObject({
  detail: z.array(z.strictObject({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() })),
});
