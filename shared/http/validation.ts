import type { z } from 'zod';
import type { ValidationIssue } from '../domain/errors.js';

const TYPE_BY_CODE: Record<string, string> = {
  invalid_type: 'type_error',
  too_big: 'less_than_equal',
  too_small: 'greater_than_equal',
  invalid_format: 'value_error',
  invalid_value: 'enum',
  unrecognized_keys: 'extra_forbidden',
  invalid_union: 'union_error',
  custom: 'value_error',
};

/** Zod's issues in FastAPI's shape: `{loc: ["body", "inputs"], msg, type}`. */
export function toValidationIssues(source: 'path' | 'query' | 'header' | 'body', error: z.ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const loc = [source, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return [{ loc, msg: 'Field required', type: 'missing' }];
    }
    const type = issue.code === 'invalid_type' ? `${issue.expected}_type` : (TYPE_BY_CODE[issue.code] ?? issue.code);
    return [{ loc, msg: issue.message, type }];
  });
}
