/** A JSON Schema as zod prints it (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

const COMPONENTS = '#/components/schemas/';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A TypeScript type for a JSON Schema of the kinds zod's `toJSONSchema` writes: objects,
 * records, arrays, unions, enums, constants, primitives and references to named components.
 */
export function typeOf(schema: JsonSchema, indent = ''): string {
  if (typeof schema.$ref === 'string') return schema.$ref.slice(COMPONENTS.length);
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices) return [...new Set(choices.map((choice) => wrapped(typeOf(choice, indent))))].join(' | ');
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, indent)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrapped(typeOf((schema.items ?? {}) as JsonSchema, indent))}[]`;
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const extra = schema.additionalProperties;
  const values = typeof extra === 'object' && extra !== null ? typeOf(extra as JsonSchema, indent) : extra === false ? null : 'unknown';
  if (properties.length === 0) return values === null ? 'Record<string, never>' : `Record<string, ${values}>`;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = properties.map(([name, property]) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const about = typeof property.description === 'string' ? `${inner}/** ${property.description} */\n` : '';
    return `${about}${inner}${key}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};`;
  });
  if (values !== null) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** Parenthesised where a union would bind wrongly (`(A | B)[]`). */
const wrapped = (type: string) => (type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type);
