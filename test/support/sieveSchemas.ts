import { Ajv, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';

/**
 * Sieve's OpenAPI document (a copy of the team's shared/spec/sieve-openapi.json), and a JSON
 * Schema validator for what it says each operation answers.
 */
export const SIEVE_DOCUMENT = JSON.parse(readFileSync(new URL('../spec/sieve-openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; responses: Record<string, { description: string; content?: Record<string, { schema?: object; example?: unknown }> }> }
    >
  >;
  components: { schemas: Record<string, object> };
};

export interface SieveOperation {
  operationId: string;
  method: string;
  /** The document's path template, `/v2/jobs/{job_id}`. */
  path: string;
}

export const SIEVE_OPERATIONS: SieveOperation[] = Object.entries(SIEVE_DOCUMENT.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ operationId: operation.operationId, method: method.toUpperCase(), path })),
);

// Not strict: the document carries OpenAPI's own keywords (`example`, ...) beside JSON Schema's.
const ajv = new Ajv({ allErrors: true, strict: false });
// The document's own examples (`2024-12-15T01:41:59.195000`) carry no zone: UTC is implied.
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/);
ajv.addSchema({ components: SIEVE_DOCUMENT.components }, 'sieve');

/** Points the document's local references at the schema registered as `sieve`. */
const anchored = (schema: unknown): unknown =>
  Array.isArray(schema)
    ? schema.map(anchored)
    : schema !== null && typeof schema === 'object'
      ? Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' ? `sieve${value}` : anchored(value)]))
      : schema;

const compiled = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: object): ValidateFunction {
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(anchored(schema) as object);
    compiled.set(key, validate);
  }
  return validate;
}

/** Problems of `body` as the answer `status` of the operation, by the document's schema; [] when it conforms. */
export function responseProblems(operationId: string, status: number, body: unknown): string[] {
  const operation = SIEVE_OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!operation) return [`the document has no operation ${operationId}`];
  const response = SIEVE_DOCUMENT.paths[operation.path]?.[operation.method.toLowerCase()]?.responses[String(status)];
  if (!response) return [`the document lists no ${status} answer for ${operationId}`];
  const content = response.content?.['application/json'];
  if (content?.schema === undefined) {
    // Only an example (the error answers): the body must be it.
    return content?.example === undefined || JSON.stringify(content.example) === JSON.stringify(body)
      ? []
      : [`expected ${JSON.stringify(content.example)}, got ${JSON.stringify(body)}`];
  }
  return problemsOf(`${operationId} ${status}`, content.schema, body);
}

/** Problems of `body` by one of the document's component schemas (`WebhookResult_NewOutputResponse_`, ...). */
export function componentProblems(name: string, body: unknown): string[] {
  return problemsOf(name, { $ref: `#/components/schemas/${name}` }, body);
}

function problemsOf(key: string, schema: object, body: unknown): string[] {
  const validate = validatorFor(key, schema);
  return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`);
}
