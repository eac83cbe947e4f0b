import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import { FILE_TYPE } from '../domain/functionMetadata.js';
import { FILE_MARKER_KEY, fileAttributes, fileMarkersIn, mapFileMarkers, MAX_NESTED_FILES, type FileMarker } from '../domain/fileOutputs.js';
import { megabytes } from '../domain/upload.js';
import { openConfinedFile } from '../system/confinedFile.js';
import type { CallMessage } from './protocol.js';

/** The most Files one call may pass that the function made itself: each is a stored copy. */
export const MAX_CALL_FILES = MAX_NESTED_FILES;

/** A call's files cannot be passed; the message goes back to the calling code (a RemoteError there). */
export class CallFileError extends Error {
  override name = 'CallFileError';
}

/** A file the replica named, opened for the agent to read: `path` reads it. */
export interface OpenedFile {
  path: string;
  close(): Promise<void>;
}

export interface CallFileOptions {
  /** Opens a file the replica names, confined to what it may hand out; null refuses it. */
  open(path: string): Promise<OpenedFile | null>;
  /** Stores an opened file's first `size` bytes (its size when checked) for the called job; what replaces the file in the call (`{upload_id, name}`). */
  store(path: string, name: string, size: number): Promise<{ upload_id: string; name: string }>;
  /** The most bytes the call's files may hold together (SLUICE_MAX_UPLOAD_MB). */
  maxBytes: number;
  /** The most files a call may pass (MAX_CALL_FILES). */
  maxFiles?: number;
}

/**
 * Opens a regular file inside `root` (every link followed) for the agent to read, or null: for
 * the job's own inputs, which the agent fetched (its user owns them), where a replica's own
 * opener takes only what the replica wrote.
 */
export const openInside = (path: string, root: string): Promise<OpenedFile | null> => openConfinedFile(path, [root]);

/** Whether a File marker names a local path: a File the function made itself, not one known by URL. */
const isLocal = (marker: FileMarker): boolean => typeof marker.path === 'string';

/**
 * The call with each File the function made itself (`{"_type": "sieve.File", "path", "name"}`,
 * in its inputs or positional arguments, nested or not) stored for the called job and replaced
 * by `{"_type": "sieve.File", "upload_id", "name"}`, which that job fetches as it does a
 * client's upload (shared/runtime/jobInputs.ts). All or nothing: every file is opened through
 * `open` (which confines what a replica may hand over: never the agent's or another replica's
 * files) and the limits checked before any is stored. A File with a URL passes as it is.
 */
export async function passCallFiles(call: CallMessage, options: CallFileOptions): Promise<CallMessage> {
  const inputs: unknown = call.inputs;
  const args: unknown = call.args;
  // The replica runs the function's code: its message is checked, not trusted.
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs) || (args !== undefined && !Array.isArray(args))) {
    throw new CallFileError('a malformed call: inputs must be an object and args a list');
  }
  const values = [...Object.values(inputs), ...(args ?? [])];
  const local = values.flatMap(fileMarkersIn).filter(isLocal);
  if (local.length === 0) return call;
  const maxFiles = options.maxFiles ?? MAX_CALL_FILES;
  if (local.length > maxFiles) {
    throw new CallFileError(
      `a call may pass at most ${maxFiles} files the function made (this one passes ${local.length}); pass more in several calls, or pack them into one`,
    );
  }
  const opened: OpenedFile[] = [];
  try {
    let total = 0;
    const sizes: number[] = [];
    for (const marker of local) {
      const path = marker.path as string;
      // The SDK sends absolute paths; a relative one would be read from the agent's folder, not the function's.
      const file = isAbsolute(path) ? await options.open(path) : null;
      if (file === null)
        throw new CallFileError(
          `${path} is not a file the function may pass to another function (pass files it wrote under its scratch folder, /tmp or $HOME, or its inputs)`,
        );
      opened.push(file);
      const info = await stat(file.path).catch(() => null);
      if (!info?.isFile()) throw new CallFileError(`${path} is not a file the function may pass to another function`);
      sizes.push(info.size);
      total += info.size;
      if (total > options.maxBytes) {
        throw new CallFileError(`the files a call passes may hold ${megabytes(options.maxBytes)} together (SLUICE_MAX_UPLOAD_MB); these hold more`);
      }
    }
    const stored: { upload_id: string; name: string }[] = [];
    for (const [index, marker] of local.entries()) {
      const name = typeof marker.name === 'string' && marker.name !== '' ? marker.name : basename(marker.path as string);
      stored.push(await options.store((opened[index] as OpenedFile).path, basename(name) || 'file', sizes[index] as number));
    }
    // The same walk, in the same order, as fileMarkersIn's.
    let next = 0;
    const replace = (value: unknown) =>
      mapFileMarkers(value, async (marker) =>
        isLocal(marker) ? { ...fileAttributes(marker), [FILE_MARKER_KEY]: FILE_TYPE, ...(stored[next++] as object) } : marker,
      );
    const passedInputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(inputs)) passedInputs[name] = await replace(value);
    const passed: CallMessage = { ...call, inputs: passedInputs };
    if (args !== undefined) {
      passed.args = [];
      for (const value of args as unknown[]) passed.args.push(await replace(value));
    }
    return passed;
  } finally {
    await Promise.allSettled(opened.map((file) => file.close()));
  }
}
