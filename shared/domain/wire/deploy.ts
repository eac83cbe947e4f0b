import { z } from 'zod';
import { functionWireSchema } from './function.js';
import { versionWireSchema } from './version.js';

/** A deploy's answer: the function and its new version, queued for its build. */
export const deployResultWireSchema = z.strictObject({ function: functionWireSchema, version: versionWireSchema });
