import { z } from 'zod';
import { defineRoute } from '../route.js';
import { pageQuery, truncateQuery } from '../schemas.js';
import { functionView } from '../views.js';
import { functionOrTruncatedWireSchema } from '../../domain/wire/function.js';

/** The caller's organization's functions, by name: an array of Function, as Sieve's. */
export const listFunctions = defineRoute({
  name: 'listFunctions',
  method: 'GET',
  path: '/v2/functions',
  summary: "List the organization's functions",
  response: { schema: z.array(functionOrTruncatedWireSchema) },
  query: z.object({ ...pageQuery, ...truncateQuery }),
  handle: async ({ query, principal, services }) => {
    const views = await services.functions.list(principal, { limit: query.limit, offset: query.offset });
    return { body: await Promise.all(views.map((view) => functionView(services, view, query.truncate))) };
  },
});
