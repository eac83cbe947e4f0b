import { randomUUID } from 'node:crypto';
import type { Item } from './item.js';

/** Where text too large for a DynamoDB item goes: the artifacts bucket on AWS (s3Spill.ts). */
export interface SpillStorage {
  put(key: string, text: string): Promise<void>;
  /** The text put at the key; throws when there is none. */
  get(key: string): Promise<string>;
  delete(key: string): Promise<void>;
}

/**
 * An item holds at most 400 KB (409,600 bytes, names included). A value over this many bytes of
 * UTF-8 is spilled, which leaves room beside it for the item's other attributes: a job's
 * inputs (up to this) and its error (up to ERROR_SPILL_OVER_BYTES) fit in one item together.
 */
export const SPILL_OVER_BYTES = 300 * 1024;
export const ERROR_SPILL_OVER_BYTES = 64 * 1024;

/** Text for attribute `name` as the item stores it: inline, or a pointer to its spilled copy. */
export interface SpillableText {
  attributes: Item;
  /** The spilled copy's key, or null when the text is inline. */
  spilledKey: string | null;
}

export interface Spiller {
  /**
   * `{ [name]: text }`, or `{ [name_spill]: key }` once a text over `overBytes` is put under
   * `spill/<owner>/`. Without storage (a store built with no spill) the text stays inline.
   */
  write(name: string, text: string, owner: string, overBytes?: number): Promise<SpillableText>;
  /** The text of attribute `name`, read back from the spill when the item points there. */
  read(item: Item, name: string): Promise<string>;
  /** Removes a spilled copy no item points at (its conditional write failed). */
  discard(key: string | null): Promise<void>;
  /** Runs the write of an item that points at these copies; they are discarded when it throws. */
  writeItem<T>(spilledKeys: (string | null)[], write: () => Promise<T>): Promise<T>;
}

export const spillAttributeOf = (name: string) => `${name}_spill`;

export function createSpiller(storage: SpillStorage | undefined): Spiller {
  const discard = async (key: string | null) => {
    if (key === null || !storage) return;
    // Best effort: a copy left behind costs its storage only, nothing reads it.
    await storage.delete(key).catch(() => undefined);
  };
  return {
    async write(name, text, owner, overBytes = SPILL_OVER_BYTES) {
      if (!storage || Buffer.byteLength(text, 'utf8') <= overBytes) return { attributes: { [name]: text }, spilledKey: null };
      // A fresh key per write: a copy is never overwritten, so an item that won its conditional
      // write keeps reading what it was written with, whatever a losing writer put.
      const key = `spill/${owner}/${name}-${randomUUID()}`;
      await storage.put(key, text);
      return { attributes: { [spillAttributeOf(name)]: key }, spilledKey: key };
    },
    async read(item, name) {
      const key = item[spillAttributeOf(name)] as string | undefined;
      if (key === undefined) return item[name] as string;
      if (!storage) throw new Error(`${name} of this item was spilled to ${key}, but the store was built without a spill`);
      return storage.get(key);
    },
    discard,
    async writeItem(spilledKeys, write) {
      try {
        return await write();
      } catch (error) {
        await Promise.all(spilledKeys.map(discard));
        throw error;
      }
    },
  };
}
