import type { JsonSchema } from './jsonSchemas.js';

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A description's text, its `code spans` shown as code. */
export const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const COMPONENTS = '#/components/schemas/';

/** A schema as a reader takes it in: types in words, objects as nested lists, named schemas as links. */
export function schemaOutline(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.slice(COMPONENTS.length);
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices) {
    const others = choices.filter((choice) => choice.type !== 'null');
    const text = others.map(schemaOutline).join(' <em>or</em> ');
    return others.length < choices.length ? `${text} <em>or null</em>` : text;
  }
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  if ('const' in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.type)) return schema.type.map((type) => schemaOutline({ ...schema, type })).join(' <em>or</em> ');
  if (schema.type === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    return items.anyOf || items.oneOf ? `array of (${schemaOutline(items)})` : `array of ${schemaOutline(items)}`;
  }
  if (schema.type === 'object') return objectOutline(schema);
  if (typeof schema.type === 'string') return withLimits(schema.type, schema);
  return 'any JSON value';
}

function objectOutline(schema: JsonSchema): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties;
  const map = typeof extra === 'object' && extra !== null ? `map of string to ${schemaOutline(extra as JsonSchema)}` : '';
  if (properties.length === 0) return map || 'object';
  const items = properties.map(([name, property]) => {
    const flag = required.has(name) ? '' : ' <span class="optional">optional</span>';
    const fallback = property.default === undefined ? '' : ` <span class="default">default ${escapeHtml(JSON.stringify(property.default))}</span>`;
    const about = typeof property.description === 'string' ? ` — ${prose(property.description)}` : '';
    return `<li><code>${escapeHtml(name)}</code>${flag}${fallback}: ${schemaOutline(property)}${about}</li>`;
  });
  return `object${map ? ` (and ${map})` : ''}<ul>${items.join('')}</ul>`;
}

function withLimits(type: string, schema: JsonSchema): string {
  const limits: string[] = [];
  if (typeof schema.pattern === 'string') limits.push(`matching <code>${escapeHtml(schema.pattern)}</code>`);
  if (typeof schema.minLength === 'number' && schema.minLength > 0) limits.push(`at least ${schema.minLength} characters`);
  // zod prints its safe-integer bounds on every int: only bounds a reader chose are worth a word.
  if (typeof schema.minimum === 'number' && Math.abs(schema.minimum) < Number.MAX_SAFE_INTEGER) limits.push(`≥ ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && Math.abs(schema.maximum) < Number.MAX_SAFE_INTEGER) limits.push(`≤ ${schema.maximum}`);
  return limits.length > 0 ? `${type}, ${limits.join(', ')}` : type;
}
