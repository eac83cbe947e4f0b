import { z } from 'zod';
import { defineRoute } from '../route.js';
import { functionPath, truncateQuery } from '../schemas.js';
import { functionView } from '../views.js';
import { functionOrTruncatedWireSchema } from '../../domain/wire/function.js';

export const getFunction = defineRoute({
  name: 'getFunction',
  method: 'GET',
  path: '/v2/functions/{owner_name}/{function_name}',
  summary: 'Get a function, with its latest version',
  response: { schema: functionOrTruncatedWireSchema },
  params: functionPath,
  query: z.object(truncateQuery),
  handle: async ({ params, query, principal, services }) => {
    const view = await services.functions.get(principal, params.owner_name, params.function_name);
    return { body: await functionView(services, view, query.truncate) };
  },
});
