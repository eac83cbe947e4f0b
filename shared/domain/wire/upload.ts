import { z } from 'zod';
import { timestampSchema } from './common.js';

/** Where to PUT a bundle or an input file (without the API key), and until when. */
export const uploadWireSchema = z.strictObject({ upload_id: z.string(), upload_url: z.string(), expires_at: timestampSchema });
