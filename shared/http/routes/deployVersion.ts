import { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { functionMetadataSchema } from '../../domain/functionMetadata.js';
import { uploadIdSchema } from '../../domain/upload.js';
import type { BundleSource } from '../../services/deployService.js';
import { defineRoute } from '../route.js';
import { functionPath } from '../schemas.js';
import { functionView, versionView } from '../views.js';
import { deployResultWireSchema } from '../../domain/wire/deploy.js';

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

const deployBody = z.strictObject({
  metadata: functionMetadataSchema,
  /** The function's directory as a gzipped tar, base64-encoded: for bundles that fit in a request. */
  bundle: z
    .string()
    .min(1)
    .transform((text, ctx) => {
      const bytes = Buffer.from(text, 'base64');
      if (bytes.length < 2 || !bytes.subarray(0, 2).equals(GZIP_MAGIC)) {
        ctx.addIssue({ code: 'custom', message: 'must be a base64-encoded gzipped tar archive' });
        return z.NEVER;
      }
      return bytes;
    })
    .optional(),
  /** An upload of the caller's organization (POST /v2/uploads) holding the gzipped tar. */
  upload_id: uploadIdSchema.optional(),
});

/** Exactly one of `bundle` and `upload_id`. */
function bundleSource(body: z.infer<typeof deployBody>): BundleSource {
  if (body.bundle !== undefined && body.upload_id === undefined) return { bundle: body.bundle };
  if (body.upload_id !== undefined && body.bundle === undefined) return { uploadId: body.upload_id };
  const msg = 'Give exactly one of "bundle" (inline, base64) and "upload_id" (from POST /v2/uploads).';
  throw new ValidationError([
    { loc: ['body', 'bundle'], msg, type: 'value_error' },
    { loc: ['body', 'upload_id'], msg, type: 'value_error' },
  ]);
}

export const deployVersion = defineRoute({
  name: 'deployVersion',
  method: 'POST',
  path: '/v2/functions/{owner_name}/{function_name}/versions',
  summary: 'Deploy a new version of a function',
  description:
    'Sluice extension (`sluice deploy` calls it): the code uploaded first (`upload_id`, see createUpload) or inline (`bundle`, a base64 gzipped tar); exactly one. Creates the function on its first deploy. Answers 201 with the function and the queued version; the build goes on in the background (poll the version, or read its logs with `GET /v2/logs?version_id=...`).',
  response: { status: 201, schema: deployResultWireSchema },
  params: functionPath,
  body: deployBody,
  handle: async ({ params, body, principal, services }) => {
    if (body.metadata.name !== params.function_name) {
      throw new ValidationError([
        { loc: ['body', 'metadata', 'name'], msg: `must match the function name in the path ("${params.function_name}")`, type: 'value_error' },
      ]);
    }
    const { fn, version } = await services.deploy.deploy(principal, params.owner_name, body.metadata, bundleSource(body));
    return {
      status: 201,
      body: { function: await functionView(services, { fn, latestVersion: version }, false), version: await versionView(services, version) },
    };
  },
});
