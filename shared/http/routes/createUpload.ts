import { z } from 'zod';
import { formatTimestamp } from '../../domain/time.js';
import { defineRoute } from '../route.js';
import { uploadWireSchema } from '../../domain/wire/upload.js';

// A URL rather than a body: on AWS a bundle never passes through Lambda's 6 MB request limit.
export const createUpload = defineRoute({
  name: 'createUpload',
  method: 'POST',
  path: '/v2/uploads',
  summary: 'Ask for an upload URL (a bundle to deploy, or an input file)',
  description:
    'The first step of a deploy, or of sending a local file as a job input: PUT exactly `size` bytes to `upload_url`, without the API key, before `expires_at`; then deploy with `upload_id`, or push `{"upload_id", "name"}` as the file input. On AWS the URL is a presigned S3 PUT.',
  response: { status: 201, schema: uploadWireSchema },
  example: { size: 1048576 },
  body: z.strictObject({ size: z.int().min(1) }),
  handle: async ({ body, principal, services }) => {
    const upload = await services.deploy.createUpload(principal, body.size);
    return { status: 201, body: { upload_id: upload.uploadId, upload_url: upload.url, expires_at: formatTimestamp(upload.expiresAt) } };
  },
});
