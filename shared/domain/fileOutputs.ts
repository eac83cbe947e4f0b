import { isFileType, type FILE_TYPE } from './functionMetadata.js';
import type { JobOutput } from './job.js';

/**
 * Where a job's output file is kept: its output's index (`3`), or `index.part` (`3.1`) for a
 * File nested in that output's dicts and lists. Numbers are the plain index.
 */
export type FileSlot = number | string;

/** A slot as text: digits, optionally a dot and digits. */
export const FILE_SLOT_PATTERN = /^\d+(?:\.\d+)?$/;

/** The slot's canonical text (`07` is `7`), or null when it is not one. */
export function parseFileSlot(text: string): string | null {
  return FILE_SLOT_PATTERN.test(text) ? text.split('.').map(Number).join('.') : null;
}

/** The slot of the `part`-th File nested in the `index`-th output (parts count from 1: the output itself is the bare index). */
export const nestedFileSlot = (index: number, part: number): string => `${index}.${part}`;

/**
 * How a File is marked inside dicts and lists (of inputs and outputs): an object whose
 * `_type` is `sieve.File`, with its `url` (and, in outputs, its `name`). A File that is a
 * whole input or output needs no marker: its declared or shown type says so.
 */
export const FILE_MARKER_KEY = '_type';

/** The most Files one input or output may hold nested: each is a fetch or a stored copy. */
export const MAX_NESTED_FILES = 256;

export interface FileMarker {
  [FILE_MARKER_KEY]: typeof FILE_TYPE;
  url?: unknown;
  path?: unknown;
  name?: unknown;
  upload_id?: unknown;
}

export function isFileMarker(value: unknown): value is FileMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && isFileType(String((value as Record<string, unknown>)[FILE_MARKER_KEY]));
}

/** The value with each nested File marker replaced by `replace(marker)`, depth first, in document order. */
export async function mapFileMarkers(value: unknown, replace: (marker: FileMarker) => Promise<unknown>): Promise<unknown> {
  if (isFileMarker(value)) return replace(value);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await mapFileMarkers(item, replace));
    return items;
  }
  if (typeof value === 'object' && value !== null) {
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(value)) entries.push([key, await mapFileMarkers(item, replace)]);
    return Object.fromEntries(entries);
  }
  return value;
}

/** Every File marker nested in the value. */
export function fileMarkersIn(value: unknown): FileMarker[] {
  if (isFileMarker(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(fileMarkersIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(fileMarkersIn);
  return [];
}

/** Signs the job's output file in `slot`, saved under `name`: a URL that works without a key until it expires. */
export type SignFileUrl = (slot: string, name: string) => Promise<string>;

/** The path a File output's stored URL ends with: the service's own, keyed route for that file. */
export const ownFilePath = (jobId: string, slot: FileSlot) => `/v2/jobs/${encodeURIComponent(jobId)}/files/${slot}`;

/** The slot a stored file URL names, when it names one of this output's own files (the output's index, or a part of it). */
function ownSlotOf(jobId: string, index: number, url: unknown, nested: boolean): string | null {
  if (typeof url !== 'string') return null;
  const prefix = ownFilePath(jobId, '');
  const at = url.lastIndexOf(prefix);
  const slot = at < 0 ? null : parseFileSlot(url.slice(at + prefix.length));
  if (slot === null) return null;
  const [outputIndex, part] = slot.split('.');
  return Number(outputIndex) === index && (part !== undefined) === nested ? slot : null;
}

/**
 * The outputs as a reader gets them: each File's `url`, whole output or nested, a signed,
 * expiring URL made now (signatures expire, so they are never stored). The stored URL stays
 * the key-checked route; only a File that names one of this very output's files is signed, so
 * data a function chose can never have another job's file signed.
 */
export async function withSignedFileUrls<Output extends Pick<JobOutput, 'index' | 'type' | 'data'>>(
  jobId: string,
  outputs: Output[],
  sign: SignFileUrl,
): Promise<Output[]> {
  const signed = async (file: { url?: unknown; name?: unknown }, slot: string | null) =>
    slot === null ? file : { ...file, url: await sign(slot, typeof file.name === 'string' ? file.name : '') };
  return Promise.all(
    outputs.map(async (output) => {
      const data = output.data as { url?: unknown; name?: unknown } | null;
      if (isFileType(output.type) && typeof data === 'object' && data !== null && !Array.isArray(data)) {
        return { ...output, data: await signed(data, ownSlotOf(jobId, output.index, data.url, false)) };
      }
      if (fileMarkersIn(output.data).length === 0) return output;
      return { ...output, data: await mapFileMarkers(output.data, (marker) => signed(marker, ownSlotOf(jobId, output.index, marker.url, true))) };
    }),
  );
}

/** What a File's JSON holds that is the file itself; anything else is an attribute of its own. */
const FILE_FIELDS = new Set([FILE_MARKER_KEY, 'path', 'url', 'name', 'upload_id']);

/**
 * A File's own attributes (Sieve's `sieve.Image(path, frame_number=3, fps=30, x0=10)`): the
 * fields of its JSON that are not the file itself. They travel with the file: into the job's
 * output, and on to the function it is passed to, which reads them back.
 */
export function fileAttributes(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !FILE_FIELDS.has(key) && !key.startsWith('_')));
}
