import { z } from 'zod';
import { defineRoute } from '../route.js';
import { pageQuery, pageWithNext, truncateQuery } from '../schemas.js';
import { functionView } from '../views.js';

/** The caller's organization's functions, by name, paged like a Job page. */
export const listFunctions = defineRoute({
  name: 'listFunctions',
  method: 'GET',
  path: '/v2/functions',
  query: z.object({ ...pageQuery, ...truncateQuery }),
  handle: async ({ query, principal, services }) => {
    const views = await services.functions.list(principal, { limit: query.limit + 1, offset: query.offset });
    const page = pageWithNext(views, query.limit, query.offset);
    return { body: { data: await Promise.all(page.data.map((view) => functionView(services, view, query.truncate))), next_offset: page.next_offset } };
  },
});
