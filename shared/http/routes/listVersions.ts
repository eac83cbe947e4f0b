import { z } from 'zod';
import { defineRoute } from '../route.js';
import { functionPath, pageQuery } from '../schemas.js';
import { versionView } from '../views.js';
import { versionWireSchema } from '../../domain/wire/version.js';

/** A function's versions, newest first. */
export const listVersions = defineRoute({
  name: 'listVersions',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}/versions',
  summary: "List a function's versions, newest first",
  response: { schema: z.array(versionWireSchema) },
  params: functionPath,
  query: z.object(pageQuery),
  handle: async ({ params, query, principal, services }) => {
    const versions = await services.versions.list(principal, params.owner_name, params.function_name, query);
    return { body: await Promise.all(versions.map((version) => versionView(services, version))) };
  },
});
