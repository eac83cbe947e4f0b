import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { WireVersion } from '../shared/domain/wire/version.js';
import type { ClientSettings } from './client.js';
import { CliError } from './client.js';
import { uploadBundle } from './uploadBundle.js';

const FILE_TYPE = 'sieve.File';
const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);

/**
 * A push's inputs from `--inputs-json` (JSON, `@file`, or `@-` for stdin) and `--input name=value`
 * pairs (which win). A pair's value reads as the function's input type says: `times=3` is an
 * int, `text=3` a string. A File input given a local path is uploaded (POST /v2/uploads); a URL
 * goes as it is.
 */
export async function readInputs(settings: ClientSettings, version: WireVersion, pairs: string[], json: string | undefined): Promise<Record<string, unknown>> {
  const types = new Map(version.inputs.map((input) => [input.name, input.type]));
  const inputs: Record<string, unknown> = json === undefined ? {} : await parseInputsJson(json);
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals < 1) throw new CliError(`--input takes name=value, not "${pair}".`);
    const name = pair.slice(0, equals);
    if (!types.has(name)) {
      const known = [...types.keys()];
      throw new CliError(`The function has no input "${name}"; its inputs: ${known.length > 0 ? known.join(', ') : '(none)'}.`);
    }
    inputs[name] = parseValue(name, types.get(name) ?? '', pair.slice(equals + 1));
  }
  for (const [name, type] of types) {
    if (type === FILE_TYPE && typeof inputs[name] === 'string') inputs[name] = await fileInput(settings, name, inputs[name]);
  }
  return inputs;
}

async function parseInputsJson(text: string): Promise<Record<string, unknown>> {
  let source = text;
  if (text === '@-') source = await readStdin();
  else if (text.startsWith('@'))
    source = await readFile(text.slice(1), 'utf8').catch(() => Promise.reject(new CliError(`Cannot read ${text.slice(1)} (--inputs-json @file).`)));
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new CliError(`--inputs-json is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('--inputs-json must be a JSON object: {"name": value, ...}.');
  return parsed as Record<string, unknown>;
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseValue(name: string, type: string, text: string): unknown {
  if (type === 'str' || type === FILE_TYPE) return text;
  if (type === 'int' || type === 'float') {
    const number = Number(text);
    if (text.trim() === '' || !Number.isFinite(number) || (type === 'int' && !Number.isInteger(number)))
      throw new CliError(`Input ${name} is ${type === 'int' ? 'an int' : 'a float'}: "${text}" is not one.`);
    return number;
  }
  if (type === 'bool') {
    if (TRUE.has(text.toLowerCase())) return true;
    if (FALSE.has(text.toLowerCase())) return false;
    throw new CliError(`Input ${name} is a bool: use true or false, not "${text}".`);
  }
  // Any other type (dict, list, a union): JSON when it parses, the text otherwise.
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A URL goes as it is; a local path is uploaded, and named so that its extension survives. */
async function fileInput(settings: ClientSettings, name: string, value: string): Promise<unknown> {
  if (/^(https?|data):/i.test(value)) return { url: value };
  const info = await stat(value).catch(() => null);
  if (!info?.isFile()) throw new CliError(`Input ${name} is a File: "${value}" is neither a URL nor a file here.`);
  const bytes = await readFile(value);
  // An upload holds at least one byte; an empty file goes inline.
  if (bytes.length === 0) return { url: 'data:application/octet-stream;base64,', name: basename(value) };
  return { upload_id: await uploadBundle(settings, bytes, value), name: basename(value) };
}
