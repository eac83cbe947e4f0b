import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../shared/http/openapi/openApiDocument.js';

/**
 * Sluice's own API document (GET /openapi.json), as a validator of answers: the schema an
 * operation declares for a status, checked against a real body.
 */
export function answerChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // The document is not a schema: its `components` only hold the schemas references point into.
  ajv.addVocabulary(['components']);
  ajv.addSchema({ $id: 'sluice', components: document.components }, 'sluice');
  const compiled = new Map<string, ValidateFunction>();
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));

  /** Problems of `body` as the answer `status` of the operation; [] when it conforms. */
  return function answerProblems(operationId: string, status: number, body: unknown): string[] {
    const operation = operations.find((candidate) => candidate.operationId === operationId);
    if (!operation) return [`the document has no operation ${operationId}`];
    const response = operation.responses[String(status)] ?? operation.responses.default;
    const schema = response?.content?.['application/json']?.schema;
    if (!schema) return [`the document lists no JSON answer ${status} for ${operationId}`];
    const key = `${operationId} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ $ref: `sluice${String(schema.$ref)}` });
      compiled.set(key, validate);
    }
    return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message} ${JSON.stringify(error.params)}`);
  };
}
