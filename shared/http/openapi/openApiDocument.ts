import type { z } from 'zod';
import type { Route } from '../route.js';
import { COMPONENT_SCHEMAS } from './componentSchemas.js';
import type { JsonSchema } from './jsonSchemas.js';
import { componentSchemas, inputSchema } from './jsonSchemas.js';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
  tags: string[];
  parameters: OpenApiParameter[];
  requestBody?: { required: true; content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  /** `[]` for a public route: no key. */
  security?: [];
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  tags: { name: string; description: string }[];
  security: { ApiKey: [] }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, object> };
}

/** Each route's tag, by the path's first segment after `/v2/`. */
const TAG_OF_SEGMENT: Record<string, string> = {
  organization: 'Organization',
  functions: 'Functions',
  uploads: 'Functions',
  jobs: 'Jobs',
  push: 'Jobs',
  logs: 'Logs',
  usage: 'Usage',
  user: 'Usage',
  services: 'Compute',
  webhooks: 'Webhooks',
};

const TAGS = [
  { name: 'Organization', description: 'Who the API key belongs to.' },
  { name: 'Functions', description: 'Functions, their versions, and deploying code.' },
  { name: 'Jobs', description: 'Pushing jobs, waiting for them, reading their outputs and files, cancelling them.' },
  { name: 'Logs', description: 'What jobs printed, and versions’ build and setup lines.' },
  { name: 'Usage', description: 'Compute seconds and cost, credits, concurrency.' },
  { name: 'Compute', description: 'The machine types this deployment can run.' },
  { name: 'Webhooks', description: 'Webhook deliveries and the signing secret.' },
  { name: 'Service', description: 'The service itself: needs no API key.' },
];

const DESCRIPTION = `Sluice serves Sieve's v2 API: a Sieve client works against it unchanged.
Every route needs the \`X-API-Key\` header unless it says otherwise. Errors are \`{"detail": "..."}\`;
request validation errors are 422 with one entry per problem (\`loc\`, \`msg\`, \`type\`).
Timestamps are UTC ISO 8601 with six fractional digits and no zone; log timestamps are
nanoseconds since the epoch, as integer strings.`;

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The OpenAPI 3.1 document of a route table, made from the routes' own zod schemas (what they
 * validate) and their response schemas (the wire schemas their answers are printed with).
 */
export function openApiDocument(routes: readonly Route[], version: string): OpenApiDocument {
  const outputs = new Map<z.ZodType, string>(Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [schema, name]));
  const inputs = new Map<z.ZodType, string>();
  for (const route of routes) {
    const schema = route.response?.schema;
    if (schema && !outputs.has(schema)) outputs.set(schema, `${pascal(route.name)}Response`);
    if (route.body) inputs.set(route.body, `${pascal(route.name)}Request`);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, outputs, inputs);
  return {
    openapi: '3.1.0',
    info: { title: 'Sluice API', version, description: DESCRIPTION },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: TAGS,
    security: [{ ApiKey: [] }],
    paths,
    components: {
      schemas: { ...componentSchemas(outputs, 'output'), ...componentSchemas(inputs, 'input') },
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key of your organization (`sluice keys create`).' } },
    },
  };
}

function operationOf(route: Route, outputs: Map<z.ZodType, string>, inputs: Map<z.ZodType, string>): OpenApiOperation {
  const success = route.response ?? {};
  const responses: OpenApiOperation['responses'] = {};
  const content = success.schema
    ? json(ref(outputs.get(success.schema) as string))
    : success.contentType
      ? { [success.contentType]: { schema: { type: 'string' } } }
      : undefined;
  responses[String(success.status ?? 200)] = { description: success.description ?? 'Success.', ...(content ? { content } : {}) };
  if (!route.public) responses['401'] = { description: 'No valid API key.', content: json(ref('ErrorResponse')) };
  if (route.params || route.query || route.body)
    responses['422'] = { description: 'The request is not valid: each problem with its place.', content: json(ref('ValidationErrorResponse')) };
  responses.default = { description: 'Any other error (400, 403, 404, 408, 413, 429, ...), saying what went wrong.', content: json(ref('ErrorResponse')) };
  return {
    operationId: route.name,
    ...(route.summary ? { summary: route.summary } : {}),
    ...(route.description ? { description: route.description } : {}),
    tags: [TAG_OF_SEGMENT[route.path.split('/')[2] ?? ''] ?? 'Service'],
    parameters: [...pathParameters(route), ...namedParameters(route.query, 'query'), ...namedParameters(route.headers, 'header')],
    ...(route.body
      ? {
          requestBody: {
            required: true as const,
            content: {
              'application/json': { schema: ref(inputs.get(route.body) as string), ...(route.example === undefined ? {} : { example: route.example }) },
            },
          },
        }
      : {}),
    responses,
    ...(route.public ? { security: [] as [] } : {}),
  };
}

/** Every `{name}` of the path, typed by the route's params schema where it has one. */
function pathParameters(route: Route): OpenApiParameter[] {
  const properties = (route.params ? inputSchema(route.params).properties : {}) as Record<string, JsonSchema>;
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name: name as string,
    in: 'path' as const,
    required: true,
    schema: properties[name as string] ?? { type: 'string' },
  }));
}

/** Each field of a query or headers schema as a parameter (headers are keyed lower-case, as HTTP compares them). */
function namedParameters(fields: z.ZodType | undefined, place: 'query' | 'header'): OpenApiParameter[] {
  if (!fields) return [];
  const schema = inputSchema(fields);
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: place,
    required: required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}
