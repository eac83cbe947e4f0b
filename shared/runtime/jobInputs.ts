import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { FILE_TYPE, isFileType } from '../domain/functionMetadata.js';
import { FILE_MARKER_KEY, fileAttributes, fileMarkersIn, mapFileMarkers } from '../domain/fileOutputs.js';
import type { JobRecord } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { OutputFileContent } from '../ports/artifacts.js';

/** A File input that cannot be fetched; the message is safe to show the pusher. */
export class InputFetchError extends Error {
  override name = 'InputFetchError';
}

export interface InputSources {
  /** The file an own file URL of the service names (an earlier job's output), or `not_own` for any other URL; null when the job may not read it or it does not exist. */
  ownFile(job: JobRecord, url: URL): Promise<OutputFileContent | null | 'not_own'>;
  /** Fetches any other http(s) URL under the address policy; an InputFetchError says why it could not, safely. */
  fetch(url: string, target: string, signal: AbortSignal): Promise<void>;
  /** The bytes of an upload (POST /v2/uploads) of the job's organization, or null when it has none by that id. */
  upload(job: JobRecord, uploadId: string): Promise<AsyncIterable<Uint8Array> | null>;
}

/** Where a File input comes from: a URL, or an upload of the pusher's organization (`upload_id`, with the file's `name`). */
interface FileSource {
  url?: unknown;
  upload_id?: unknown;
  name?: unknown;
}

/** Whether the job names a File to fetch (a File input, or a File inside one); most jobs name none and run with their inputs as pushed. */
export function namesFileInputs(version: VersionRecord, job: JobRecord): boolean {
  return version.inputs.some((declared) => {
    const value = job.inputs[declared.name];
    return value !== null && value !== undefined && (isFileType(declared.type) || fileMarkersIn(value).length > 0);
  });
}

/**
 * Fetches the job's File inputs into `directory` before the replica sees the job, and gives the
 * inputs with each File as `{"path", "url"}` and its own attributes (fileAttributes): the replica reads local files only, so the code of
 * a function (maybe another organization's) is never what reaches a URL a pusher chose.
 */
export async function fetchFileInputs(
  version: VersionRecord,
  job: JobRecord,
  directory: string,
  sources: InputSources,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const inputs = { ...job.inputs };
  for (const declared of version.inputs) {
    const value = inputs[declared.name];
    if (value === null || value === undefined) continue;
    if (!isFileType(declared.type)) {
      inputs[declared.name] = await fetchNestedFiles(job, declared.name, value, directory, sources, signal);
      continue;
    }
    const source: FileSource = typeof value === 'string' ? { url: value } : (value as FileSource);
    const fetched = await fetchSource(job, declared.name, source, join(directory, declared.name), sources, signal);
    inputs[declared.name] = { ...fileAttributes(source), ...fetched };
  }
  return inputs;
}

/** One File input fetched into `folder`: `{"path", "url"}` (url null for an upload). */
async function fetchSource(
  job: JobRecord,
  name: string,
  source: FileSource,
  folder: string,
  sources: InputSources,
  signal: AbortSignal,
): Promise<{ path: string; url: string | null }> {
  const hasUpload = typeof source.upload_id === 'string';
  if (!hasUpload && typeof source.url !== 'string') throw new InputFetchError(`Input ${name} could not be fetched: it has no URL.`);
  await mkdir(folder, { recursive: true });
  try {
    if (hasUpload) return { path: await fetchUpload(job, source.upload_id as string, source.name, folder, sources, signal), url: null };
    return { path: await fetchOne(job, source.url as string, folder, sources, signal), url: source.url as string };
  } catch (error) {
    const reason = error instanceof InputFetchError ? error.message : 'it could not be read';
    throw new InputFetchError(`Input ${name} could not be fetched: ${reason}.`);
  }
}

async function fetchUpload(job: JobRecord, uploadId: string, name: unknown, folder: string, sources: InputSources, signal: AbortSignal): Promise<string> {
  const bytes = await sources.upload(job, uploadId);
  if (bytes === null) throw new InputFetchError('no such upload of this organization');
  const target = join(folder, safeName(typeof name === 'string' ? name : ''));
  await pipeline(bytes, createWriteStream(target), { signal });
  return target;
}

/** Fetches each File marked inside an input's dicts and lists into `<directory>/<input>/<n>/`, giving it as `{"_type", "path", "url"}`. */
async function fetchNestedFiles(job: JobRecord, name: string, value: unknown, directory: string, sources: InputSources, signal: AbortSignal): Promise<unknown> {
  let part = 0;
  return mapFileMarkers(value, async (marker) => {
    part += 1;
    const fetched = await fetchSource(job, name, marker as FileSource, join(directory, name, String(part)), sources, signal);
    return { ...fileAttributes(marker), [FILE_MARKER_KEY]: FILE_TYPE, ...fetched };
  });
}

async function fetchOne(job: JobRecord, text: string, folder: string, sources: InputSources, signal: AbortSignal): Promise<string> {
  const url = new URL(text);
  if (url.protocol === 'data:') {
    const target = join(folder, 'input');
    await writeFile(target, Buffer.from(await (await fetch(url)).arrayBuffer()));
    return target;
  }
  const own = await sources.ownFile(job, url);
  if (own === null) throw new InputFetchError('no such file of this organization');
  if (own !== 'not_own') {
    const target = join(folder, safeName(own.name));
    await pipeline(own.stream, createWriteStream(target), { signal });
    return target;
  }
  const target = join(folder, safeName(lastSegment(url)));
  await sources.fetch(url.href, target, signal);
  return target;
}

function lastSegment(url: URL): string {
  try {
    return decodeURIComponent(url.pathname.split('/').pop() ?? '');
  } catch {
    return '';
  }
}

/** A file name that stays inside its folder. */
function safeName(name: string): string {
  const base = basename(name.replace(/\\/g, '/')).replace(/\0/g, '');
  return base === '' || base === '.' || base === '..' ? 'input' : base;
}
