import { z } from 'zod';

/**
 * Bundle uploads: the client PUTs its gzipped tar straight to storage (a presigned S3 URL on
 * AWS, the service itself locally), then deploys with the upload's id, so a bundle never
 * passes through a request body and its limits (6 MB on Lambda).
 */

/** How long an upload URL takes a PUT. */
export const UPLOAD_URL_EXPIRES_S = 15 * 60;

/** How long a received upload can be deployed from (an S3 lifecycle rule; the local mode sweeps). */
export const UPLOAD_KEPT_DAYS = 1;

/** Upload ids are UUIDs; the pattern keeps any other text out of storage keys and paths. */
export const uploadIdSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an upload id returned by POST /v2/uploads');

export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
