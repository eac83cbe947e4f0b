import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';

/**
 * zod's JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). A bigint is printed as an exact
 * integer on the wire (shared/http/json.ts), so it is an integer here.
 */
const options = (io: 'input' | 'output') => ({
  io,
  target: 'draft-2020-12' as const,
  unrepresentable: 'any' as const,
  uri: (id: string) => `${COMPONENTS}${id}`,
  override: (ctx: { zodSchema: { _zod: { def: { type: string } } }; jsonSchema: JsonSchema }) => {
    if (ctx.zodSchema._zod.def.type === 'bigint') ctx.jsonSchema.type = 'integer';
  },
});

/** Named schemas, each `#/components/schemas/<name>`, referring to each other by those names. */
export function componentSchemas(named: Map<z.ZodType, string>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, options(io)) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, withoutDialect(schema)]));
}

/** One schema, whole (path and query parameters: read as the client writes them). */
export function inputSchema(schema: z.ZodType): JsonSchema {
  return withoutDialect(z.toJSONSchema(schema, options('input')) as JsonSchema);
}

/** The document states the dialect once (`jsonSchemaDialect`); a component is named by its place, not an `$id`. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}
