import { z } from 'zod';
import { defineRoute } from '../route.js';
import { versionPath } from '../schemas.js';
import { versionView } from '../views.js';
import { versionWireSchema } from '../../domain/wire/version.js';

const nullableCount = z.int().nullable().optional();
const nullableSeconds = z.number().nullable().optional();

/**
 * Replica bounds, changed without a redeploy; absent or null fields are left as they are, but a
 * null scaledown_window restores the deployment's default. scaledown_window and buffer_replicas
 * are Sluice extensions (Modal's scaledown_window and buffer_containers): Sieve's clients omit them.
 */
export const editVersion = defineRoute({
  name: 'editVersion',
  method: 'POST',
  path: '/v2/functions/{owner_name}/{function_name}/versions/{version_slug}/edit',
  summary: "Change a version's replica bounds without a redeploy",
  response: { schema: versionWireSchema },
  example: { minimum_replicas: 1, maximum_replicas: 4, scaledown_window: 300, buffer_replicas: 1 },
  params: versionPath,
  body: z.object({ minimum_replicas: nullableCount, maximum_replicas: nullableCount, scaledown_window: nullableSeconds, buffer_replicas: nullableCount }),
  handle: async ({ params, body, principal, services }) => {
    const version = await services.versionEdits.edit(principal, params.owner_name, params.function_name, params.version_slug, body);
    return { body: await versionView(services, version) };
  },
});
