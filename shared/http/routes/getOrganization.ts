import { defineRoute } from '../route.js';
import { organizationWireSchema } from '../../domain/wire/organization.js';

/** Sluice extension: who the key belongs to (the CLI uses it to know where it deploys). */
export const getOrganization = defineRoute({
  name: 'getOrganization',
  method: 'GET',
  path: '/v2/organization',
  summary: 'The organization the API key belongs to',
  response: { schema: organizationWireSchema },
  handle: async ({ principal }) => ({ body: { id: principal.organizationId, name: principal.organizationName } }),
});
