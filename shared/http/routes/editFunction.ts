import { z } from 'zod';
import { webhookListSchema } from '../../domain/webhook.js';
import { defineRoute } from '../route.js';
import { functionPath, truncateQuery } from '../schemas.js';
import { functionView } from '../views.js';
import { functionOrTruncatedWireSchema } from '../../domain/wire/function.js';

const nullableText = z.string().nullable().optional();

/** Fields Sieve's edit does not know are ignored, as its API ignores them. */
const editBody = z.object({
  webhooks: z.object({ hooks: webhookListSchema }).nullable().optional(),
  visibility: z.enum(['public', 'private']).nullable().optional(),
  title: nullableText,
  code_url: nullableText,
  description: nullableText,
  tags: z.array(z.string()).nullable().optional(),
  cover_image_url: nullableText,
  readme: nullableText,
  examples: z.array(z.string()).nullable().optional(),
});

export const editFunction = defineRoute({
  name: 'editFunction',
  method: 'POST',
  path: '/v2/functions/{owner_name}/{function_name}/edit',
  summary: "Edit a function's description, visibility and webhooks",
  response: { schema: functionOrTruncatedWireSchema },
  example: { description: 'Says it back.', visibility: 'public' },
  params: functionPath,
  query: z.object(truncateQuery),
  body: editBody,
  handle: async ({ params, query, body, principal, services }) => {
    const view = await services.functions.edit(principal, params.owner_name, params.function_name, body);
    return { body: await functionView(services, view, query.truncate) };
  },
});
