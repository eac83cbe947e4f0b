import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { FILE_TYPE, isFileType } from '../domain/functionMetadata.js';
import { FILE_MARKER_KEY, mapFileMarkers } from '../domain/fileOutputs.js';
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
}

/**
 * Fetches the job's File inputs into `directory` before the replica sees the job, and gives the
 * inputs with each File as `{"path", "url"}`: the replica reads local files only, so the code of
 * a function (maybe another organization's) is never what reaches a URL a pusher chose.
 */
export async function fetchFileInputs(version: VersionRecord, job: JobRecord, directory: string, sources: InputSources, signal: AbortSignal): Promise<Record<string, unknown>> {
  const inputs = { ...job.inputs };
  for (const declared of version.inputs) {
    const value = inputs[declared.name];
    if (value === null || value === undefined) continue;
    if (!isFileType(declared.type)) {
      inputs[declared.name] = await fetchNestedFiles(job, declared.name, value, directory, sources, signal);
      continue;
    }
    const url = typeof value === 'string' ? value : (value as { url?: unknown }).url;
    if (typeof url !== 'string') throw new InputFetchError(`Input ${declared.name} could not be fetched: it has no URL.`);
    const folder = join(directory, declared.name);
    await mkdir(folder, { recursive: true });
    try {
      inputs[declared.name] = { path: await fetchOne(job, url, folder, sources, signal), url };
    } catch (error) {
      const reason = error instanceof InputFetchError ? error.message : 'it could not be read';
      throw new InputFetchError(`Input ${declared.name} could not be fetched: ${reason}.`);
    }
  }
  return inputs;
}

/** Fetches each File marked inside an input's dicts and lists into `<directory>/<input>/<n>/`, giving it as `{"_type", "path", "url"}`. */
async function fetchNestedFiles(job: JobRecord, name: string, value: unknown, directory: string, sources: InputSources, signal: AbortSignal): Promise<unknown> {
  let part = 0;
  return mapFileMarkers(value, async (marker) => {
    part += 1;
    if (typeof marker.url !== 'string') throw new InputFetchError(`Input ${name} could not be fetched: a file in it has no URL.`);
    const folder = join(directory, name, String(part));
    await mkdir(folder, { recursive: true });
    try {
      return { [FILE_MARKER_KEY]: FILE_TYPE, path: await fetchOne(job, marker.url, folder, sources, signal), url: marker.url };
    } catch (error) {
      const reason = error instanceof InputFetchError ? error.message : 'it could not be read';
      throw new InputFetchError(`Input ${name} could not be fetched: ${reason}.`);
    }
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
