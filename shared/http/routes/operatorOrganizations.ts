import { z } from 'zod';
import { notFound, ServiceError } from '../../domain/errors.js';
import { ORGANIZATION_NAME_PATTERN } from '../../domain/organization.js';
import { organizationLimitsChangeSchema } from '../../domain/organizationLimits.js';
import { organizationLimitsListWireSchema, organizationLimitsWireSchema, serializeLimits } from '../../domain/wire/organizationLimits.js';
import { sameSecret } from '../metricsEndpoint.js';
import { defineRoute } from '../route.js';

// The operator API: organizations' limits (docs/api.md, "Budgets and quotas"). Public to the
// key middleware, because no organization's key may open it: only SLUICE_OPERATOR_TOKEN does.
// Without that token set the API is off and answers 404, as if it were not there.

const operatorHeaders = z.object({ authorization: z.string().optional() });
const organizationPath = z.object({ name: z.string().regex(ORGANIZATION_NAME_PATTERN, 'not an organization name') });

function assertOperator(authorization: string | undefined, token: string | undefined): void {
  if (token === undefined) throw notFound('Not Found: the operator API is served only when SLUICE_OPERATOR_TOKEN is set.');
  const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (given === undefined || !sameSecret(given, token)) {
    throw new ServiceError('unauthorized', "The operator API needs Authorization: Bearer <SLUICE_OPERATOR_TOKEN>; an organization's API key does not open it.");
  }
}

export const listOrganizationLimits = defineRoute({
  name: 'listOrganizationLimits',
  method: 'GET',
  path: '/v2/operator/organizations',
  public: true,
  summary: "Operator: every organization's limits",
  description: 'Needs `Authorization: Bearer <SLUICE_OPERATOR_TOKEN>`; answers 404 when that token is not set.',
  response: { schema: organizationLimitsListWireSchema },
  headers: operatorHeaders,
  handle: async ({ headers, services }) => {
    assertOperator(headers.authorization, services.operatorToken);
    return { body: { data: (await services.operatorLimits.list()).map(serializeLimits) } };
  },
});

export const getOrganizationLimits = defineRoute({
  name: 'getOrganizationLimits',
  method: 'GET',
  path: '/v2/operator/organizations/{name}/limits',
  public: true,
  summary: "Operator: one organization's limits",
  description: 'Needs `Authorization: Bearer <SLUICE_OPERATOR_TOKEN>`; answers 404 when that token is not set.',
  response: { schema: organizationLimitsWireSchema },
  params: organizationPath,
  headers: operatorHeaders,
  handle: async ({ params, headers, services }) => {
    assertOperator(headers.authorization, services.operatorToken);
    return { body: serializeLimits(await services.operatorLimits.get(params.name)) };
  },
});

export const setOrganizationLimits = defineRoute({
  name: 'setOrganizationLimits',
  method: 'POST',
  path: '/v2/operator/organizations/{name}/limits',
  public: true,
  summary: "Operator: change an organization's limits",
  description:
    'Sets the fields given; the others keep their value; a null `monthly_budget` or `max_active_jobs` removes that cap. Needs `Authorization: Bearer <SLUICE_OPERATOR_TOKEN>`.',
  example: { weight: 2, monthly_budget: 100, max_active_jobs: 50, budget_warning_at: 0.8 },
  response: { schema: organizationLimitsWireSchema },
  params: organizationPath,
  body: organizationLimitsChangeSchema,
  headers: operatorHeaders,
  handle: async ({ params, body, headers, services }) => {
    assertOperator(headers.authorization, services.operatorToken);
    return { body: serializeLimits(await services.operatorLimits.change(params.name, body)) };
  },
});
