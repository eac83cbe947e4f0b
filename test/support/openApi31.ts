import { z } from 'zod';

/**
 * The parts of OpenAPI 3.1 (https://spec.openapis.org/oas/v3.1.0) that Sluice's document
 * uses, strictly: a misspelt or misplaced field fails, as it would in a validator of the
 * whole specification. The JSON Schemas inside are checked by Ajv's 2020-12 meta-schema.
 */
const jsonSchema = z.record(z.string(), z.unknown());
const mediaTypes = z.record(z.string().regex(/^[\w.+-]+\/[\w.+-]+$/), z.strictObject({ schema: jsonSchema, example: z.unknown().optional() }));
const parameter = z.strictObject({
  name: z.string().min(1),
  in: z.enum(['query', 'header', 'path', 'cookie']),
  required: z.boolean(),
  description: z.string().optional(),
  schema: jsonSchema,
});
const operation = z.strictObject({
  operationId: z.string().min(1),
  summary: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()),
  parameters: z.array(parameter),
  requestBody: z.strictObject({ required: z.boolean(), content: mediaTypes }).optional(),
  responses: z.record(z.string().regex(/^([1-5]\d\d|[1-5]XX|default)$/), z.strictObject({ description: z.string(), content: mediaTypes.optional() })),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
});
const componentName = z.string().regex(/^[a-zA-Z0-9._-]+$/);

export const openApi31 = z.strictObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.strictObject({ title: z.string(), version: z.string(), description: z.string().optional() }),
  jsonSchemaDialect: z.url(),
  tags: z.array(z.strictObject({ name: z.string(), description: z.string() })),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  paths: z.record(z.string().startsWith('/'), z.partialRecord(z.enum(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']), operation)),
  components: z.strictObject({
    schemas: z.record(componentName, jsonSchema),
    securitySchemes: z.record(
      componentName,
      z.strictObject({ type: z.literal('apiKey'), in: z.enum(['header', 'query', 'cookie']), name: z.string(), description: z.string().optional() }),
    ),
  }),
});
