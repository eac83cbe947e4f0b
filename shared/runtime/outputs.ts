import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILE_TYPE } from '../domain/functionMetadata.js';
import { FILE_MARKER_KEY, fileAttributes, fileMarkersIn, mapFileMarkers, MAX_NESTED_FILES, nestedFileSlot, type FileSlot } from '../domain/fileOutputs.js';
import type { JobOutput, JobRecord } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { OutputMessage } from './protocol.js';

/** The interface's type name for a value the function did not declare precisely. */
function typeOfValue(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  if (value !== null && typeof value === 'object') return 'dict';
  return 'any';
}

type StoreFile = (job: JobRecord, slot: FileSlot, path: string, name: string) => Promise<unknown>;

/** Where file outputs go: one the replica names (confined to what it may hand out), or one the agent wrote itself. */
export interface OutputFileStores {
  replicaFile: StoreFile;
  agentFile: StoreFile;
}

/**
 * The value with each File nested in it stored: the replica marks one with a local `path`
 * (`{"_type": "sieve.File", "path", "name"}`), which becomes `{"_type", "url", "name"}`, its
 * file kept in the output's next part slot. A marker with a URL only (a File the function got
 * from elsewhere) stays as it is, its `path` dropped.
 */
async function storeNestedFiles(job: JobRecord, index: number, value: unknown, storeFile: StoreFile): Promise<unknown> {
  if (fileMarkersIn(value).length > MAX_NESTED_FILES) throw new Error(`output ${index} holds more than ${MAX_NESTED_FILES} files nested in it`);
  let part = 0;
  return mapFileMarkers(value, async (marker) => {
    const attributes = fileAttributes(marker);
    if (typeof marker.path !== 'string') return { ...attributes, [FILE_MARKER_KEY]: FILE_TYPE, url: marker.url ?? null, name: marker.name ?? null };
    part += 1;
    const stored = (await storeFile(job, nestedFileSlot(index, part), marker.path, typeof marker.name === 'string' ? marker.name : 'file')) as object;
    return { ...attributes, [FILE_MARKER_KEY]: FILE_TYPE, ...stored };
  });
}

/** The name a too-large value is stored under, as a file output. */
export const oversizedOutputName = (index: number) => `output-${index}.json`;

/**
 * One output message as the job's InputOutput: declared type and name where the version has
 * them. A value whose JSON is longer than `maxOutputBytes` is stored as a file output (the SDK
 * does so itself; this holds a replica that does not to the same rule), so no job, page or
 * webhook ever carries it inline.
 */
export async function outputFromMessage(
  version: VersionRecord,
  job: JobRecord,
  message: OutputMessage,
  store: OutputFileStores,
  maxOutputBytes: number,
): Promise<Omit<JobOutput, 'jobId' | 'runId'>> {
  const declared = version.outputs[0];
  if (message.file !== undefined) {
    const stored = (await store.replicaFile(job, message.index, message.file, message.name ?? 'file')) as object;
    // Its attributes (frame_number, fps...) first: they never take the place of the file's url or name.
    const data = { ...fileAttributes(isPlainObject(message.attributes) ? message.attributes : {}), ...stored };
    return { index: message.index, type: FILE_TYPE, name: declared?.name ?? '', data };
  }
  const value = await storeNestedFiles(job, message.index, message.value ?? null, store.replicaFile);
  const encoded = JSON.stringify(value);
  if (Buffer.byteLength(encoded) > maxOutputBytes) {
    const folder = await mkdtemp(join(tmpdir(), 'sluice-output-'));
    try {
      const path = join(folder, oversizedOutputName(message.index));
      await writeFile(path, encoded);
      const data = await store.agentFile(job, message.index, path, oversizedOutputName(message.index));
      return { index: message.index, type: FILE_TYPE, name: declared?.name ?? '', data };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
  const type = declared && declared.type !== 'any' ? declared.type : typeOfValue(value);
  return { index: message.index, type, name: declared?.name ?? '', data: value };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
