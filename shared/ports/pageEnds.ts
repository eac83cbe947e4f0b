import type { ListKey } from '../domain/listOffsets.js';

/**
 * Where pages of job lists ended, by the offset each handed out as next_offset (kept
 * PAGE_END_KEPT_S). A list is named by its filter: its organization's id, a colon, then the
 * function or version and the status (an organization's ends are kept, and capped, apart).
 */
export interface PageEndStore {
  /** The job after which the page at `offset` of `list` starts, if a page ended there within `maxAgeS`. */
  find(list: string, offset: number, maxAgeS: number): Promise<ListKey | undefined>;
  remember(list: string, offset: number, after: ListKey): Promise<void>;
  /** The largest offset under `offset` that `list` handed out lately, if any. */
  nearest(list: string, offset: number): Promise<number | undefined>;
}
