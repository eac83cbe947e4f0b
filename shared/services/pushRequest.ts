import { ValidationError, type ValidationIssue } from '../domain/errors.js';
import { FILE_TYPE, isFileType, type InputSpec } from '../domain/functionMetadata.js';
import type { VersionRecord } from '../domain/version.js';
import { fileMarkersIn, MAX_NESTED_FILES, type FileMarker } from '../domain/fileOutputs.js';

const TYPE_CHECKS: Partial<Record<InputSpec['type'], (value: unknown) => boolean>> = {
  str: (value) => typeof value === 'string',
  int: (value) => Number.isInteger(value),
  float: (value) => typeof value === 'number',
  bool: (value) => typeof value === 'boolean',
  dict: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  list: (value) => Array.isArray(value),
  [FILE_TYPE]: (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? isFileSource(value as FileMarker) : isFileUrl(value)),
};

/** A File given as an object: its URL, or an upload of the pusher's (`upload_id`, from POST /v2/uploads, with an optional `name`). */
function isFileSource(file: { url?: unknown; upload_id?: unknown; name?: unknown }): boolean {
  if (file.upload_id !== undefined)
    return typeof file.upload_id === 'string' && file.upload_id !== '' && (file.name === undefined || typeof file.name === 'string');
  return isFileUrl(file.url);
}

/**
 * A File input is a URL the service fetches for the job: http(s) (under the address policy) or
 * data. Never a path or a file:// URL, which would name the service's own files.
 */
function isFileUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  return ['http:', 'https:', 'data:'].includes(new URL(value).protocol);
}

/**
 * Inputs as Sieve takes them: by name (an object), or by position (an array, in the order the
 * function declares its parameters), given names here. More values than parameters is 422.
 */
export function namedInputs(
  version: VersionRecord,
  inputs: Record<string, unknown> | unknown[],
): { inputs: Record<string, unknown>; issues: ValidationIssue[] } {
  if (!Array.isArray(inputs)) return { inputs, issues: [] };
  const issues = inputs.slice(version.inputs.length).map((_, extra): ValidationIssue => ({
    loc: ['body', 'inputs', version.inputs.length + extra],
    msg: `Too many positional inputs: the function takes ${version.inputs.length} (${version.inputs.map((input) => input.name).join(', ') || 'none'})`,
    type: 'extra_forbidden',
  }));
  return {
    inputs: Object.fromEntries(inputs.slice(0, version.inputs.length).map((value, index) => [(version.inputs[index] as InputSpec).name, value])),
    issues,
  };
}

/**
 * Checks a push's inputs against the version's declared inputs: every required one present,
 * none unknown, each of the declared type (null is accepted for optional inputs).
 */
export function checkInputs(version: VersionRecord, inputs: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const declared = new Map(version.inputs.map((input) => [input.name, input]));
  for (const name of Object.keys(inputs)) {
    if (!declared.has(name))
      issues.push({
        loc: ['body', 'inputs', name],
        msg: `Unknown input: the function takes ${[...declared.keys()].join(', ') || 'no inputs'}`,
        type: 'extra_forbidden',
      });
  }
  for (const input of version.inputs) {
    const value = inputs[input.name];
    if (value === undefined) {
      if (!input.is_optional) issues.push({ loc: ['body', 'inputs', input.name], msg: 'Field required', type: 'missing' });
      continue;
    }
    if (value === null && input.is_optional) continue;
    const nested = isFileType(input.type) ? [] : fileMarkersIn(value);
    if (nested.length > MAX_NESTED_FILES) {
      issues.push({ loc: ['body', 'inputs', input.name], msg: `At most ${MAX_NESTED_FILES} files may be nested in one input`, type: 'too_long' });
      continue;
    }
    if (nested.some((marker) => !isFileSource(marker))) {
      issues.push({
        loc: ['body', 'inputs', input.name],
        msg: `A file in it should have a URL: {"_type": "${FILE_TYPE}", "url": "https://..."} (http, https or data; not a path or file:// URL)`,
        type: 'file_type',
      });
      continue;
    }
    const check = TYPE_CHECKS[isFileType(input.type) ? FILE_TYPE : input.type];
    if (check && !check(value)) {
      const expected = isFileType(input.type)
        ? 'a file: {"url": "https://..."} or the URL itself (http, https or data; not a path or file:// URL)'
        : `of type ${input.type}`;
      issues.push({ loc: ['body', 'inputs', input.name], msg: `Input should be ${expected}`, type: `${input.type}_type` });
    }
  }
  return issues;
}

/**
 * Inputs given by position, named after the version's declared inputs in order, with those
 * given by name. More values than inputs, or one given both ways, is a validation error.
 */
export function namePositionalInputs(version: VersionRecord, args: unknown[], named: Record<string, unknown>): Record<string, unknown> {
  const names = version.inputs.map((input) => input.name);
  if (args.length > names.length) {
    throw new ValidationError([
      {
        loc: ['body', 'args'],
        msg: `The function takes ${names.length} input${names.length === 1 ? '' : 's'} (${names.join(', ') || 'none'}); ${args.length} were given by position`,
        type: 'too_long',
      },
    ]);
  }
  const inputs: Record<string, unknown> = {};
  args.forEach((value, index) => (inputs[names[index] as string] = value));
  const twice = Object.keys(named).filter((name) => name in inputs);
  if (twice.length > 0) {
    throw new ValidationError(twice.map((name) => ({ loc: ['body', 'inputs', name], msg: 'Input given both by position and by name', type: 'value_error' })));
  }
  return { ...inputs, ...named };
}

/**
 * The version's environment variable defaults, with the push's values over them. A variable
 * declared without a default (Sieve's required `sieve.Env`) must be set by the push: a 422
 * naming it otherwise, before the job exists.
 */
export function mergeEnvironment(version: VersionRecord, overrides: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  for (const variable of version.environmentVariables) {
    if (variable.default !== null) env[variable.name] = variable.default;
    else if (!(variable.name in overrides)) missing.push(variable.name);
  }
  if (missing.length > 0) {
    throw new ValidationError(
      missing.map((name) => ({
        loc: ['body', 'env', name],
        msg: `The function requires the environment variable ${name} (declared without a default): set it in the push's env`,
        type: 'missing',
      })),
    );
  }
  return { ...env, ...overrides };
}

/** `owner/name` or `owner/name:version`. */
export function parseFunctionReference(reference: string): { ownerName: string; name: string; versionSlug: string | null } | null {
  const match = /^([^/:\s]+)\/([^/:\s]+)(?::([^/:\s]+))?$/.exec(reference);
  if (!match) return null;
  return { ownerName: match[1] as string, name: match[2] as string, versionSlug: match[3] ?? null };
}
