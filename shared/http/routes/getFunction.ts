import { z } from 'zod';
import { defineRoute } from '../route.js';
import { functionPath, truncateQuery } from '../schemas.js';
import { functionView } from '../views.js';

export const getFunction = defineRoute({
  name: 'getFunction',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}',
  params: functionPath,
  query: z.object(truncateQuery),
  handle: async ({ params, query, principal, services }) => {
    const view = await services.functions.get(principal, params.owner_name, params.function_name);
    return { body: await functionView(services, view, query.truncate) };
  },
});
