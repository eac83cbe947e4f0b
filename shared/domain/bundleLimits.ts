import { tooLarge, unprocessable } from './errors.js';

/** What a deploy bundle may unpack to (SLUICE_MAX_BUNDLE_UNPACKED_MB, SLUICE_MAX_BUNDLE_FILES). */
export interface BundleLimits {
  maxUnpackedBytes: number;
  /** Files and folders together: a million empty folders is a bomb too. */
  maxEntries: number;
}

/** One entry of the bundle's tar, as its header declares it. */
export interface BundleEntry {
  path: string;
  /** The tar entry type, as node-tar names it: File, Directory, SymbolicLink, Link, ... */
  type: string;
  size: number;
}

/** Files and folders only: a link could point the code, or a later entry, outside its folder. */
const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory']);

/** Tar headers, padding and extended headers inflate beside the entries' own bytes. */
const TAR_OVERHEAD_PER_ENTRY = 2048;
const TAR_OVERHEAD = 16 * 1024 * 1024;

const mebibytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A path that stays inside the folder it is unpacked in: relative, with no ".." step. */
export function isContainedPath(path: string): boolean {
  if (path === '' || path.includes('\0')) return false;
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) return false;
  return !path.split(/[/\\]+/).includes('..');
}

/**
 * The bundle's entries counted as they are read, so that reading stops at the first one
 * that breaks a rule, before anything past the limits is inflated or written.
 */
export class BundleTally {
  private entries = 0;
  private bytes = 0;

  constructor(private readonly limits: BundleLimits) {}

  /** Counts one entry, or throws (413 for a limit, 422 for an entry refused) naming the rule. */
  admit(entry: BundleEntry): void {
    if (!ALLOWED_TYPES.has(entry.type)) {
      throw unprocessable(`The bundle entry "${entry.path}" is a ${entry.type}: a bundle may hold only files and folders (no links or devices).`);
    }
    if (!isContainedPath(entry.path)) {
      throw unprocessable(`The bundle entry "${entry.path}" points outside the function's folder (an absolute path or a ".." step).`);
    }
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) {
      throw tooLarge(`The bundle holds more than ${this.limits.maxEntries} files and folders, the limit (SLUICE_MAX_BUNDLE_FILES).`);
    }
    this.bytes += entry.size;
    if (this.bytes > this.limits.maxUnpackedBytes) throw this.unpackedTooLarge();
  }

  /** The most a bundle within the limits inflates to, its tar structure included. */
  maxInflatedBytes(): number {
    return this.limits.maxUnpackedBytes + this.limits.maxEntries * TAR_OVERHEAD_PER_ENTRY + TAR_OVERHEAD;
  }

  unpackedTooLarge(): Error {
    return tooLarge(`The bundle unpacks to more than ${mebibytes(this.limits.maxUnpackedBytes)}, the limit (SLUICE_MAX_BUNDLE_UNPACKED_MB).`);
  }
}
