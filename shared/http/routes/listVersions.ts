import { z } from 'zod';
import { defineRoute } from '../route.js';
import { functionPath, pageQuery } from '../schemas.js';
import { versionView } from '../views.js';

/** A function's versions, newest first. */
export const listVersions = defineRoute({
  name: 'listVersions',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}/versions',
  params: functionPath,
  query: z.object(pageQuery),
  handle: async ({ params, query, principal, services }) => {
    const versions = await services.versions.list(principal, params.owner_name, params.function_name, query);
    return { body: await Promise.all(versions.map((version) => versionView(services, version))) };
  },
});
