import { defineRoute } from '../route.js';
import { versionPath } from '../schemas.js';
import { versionView } from '../views.js';
import { versionWireSchema } from '../../domain/wire/version.js';

export const getVersion = defineRoute({
  name: 'getVersion',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}/versions/{version_slug}',
  summary: 'Get a version (an id, an id prefix, or `latest`)',
  response: { schema: versionWireSchema },
  params: versionPath,
  handle: async ({ params, principal, services }) => {
    const { version } = await services.versions.get(principal, params.owner_name, params.function_name, params.version_slug);
    return { body: await versionView(services, version) };
  },
});
