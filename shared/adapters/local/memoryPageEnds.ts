import { PAGE_END_KEPT_S, type ListKey } from '../../domain/listOffsets.js';
import type { PageEndStore } from '../../ports/pageEnds.js';

interface PageEnd extends ListKey {
  /** When the page was served (milliseconds). */
  servedAt: number;
}

/** How many page ends are kept (the oldest go first): a walk needs one at a time, so this serves many clients. */
const KEPT = 65_536;

/**
 * Page ends in this process's memory: the local service is one process, and a page end lost
 * with it only makes the next deep page of a walk ask again from an offset it was handed.
 */
export function memoryPageEnds(now: () => number = Date.now): PageEndStore {
  const ends = new Map<string, PageEnd>();
  const keyOf = (list: string, offset: number) => `${list}\u0000${offset}`;
  const fresh = (end: PageEnd | undefined) => end !== undefined && now() - end.servedAt <= PAGE_END_KEPT_S * 1000;
  return {
    async find(list, offset) {
      const end = ends.get(keyOf(list, offset));
      return fresh(end) ? { createdAt: (end as PageEnd).createdAt, id: (end as PageEnd).id } : undefined;
    },
    async remember(list, offset, after) {
      const key = keyOf(list, offset);
      // Kept as the newest: the oldest are dropped first.
      ends.delete(key);
      ends.set(key, { createdAt: after.createdAt, id: after.id, servedAt: now() });
      while (ends.size > KEPT) ends.delete(ends.keys().next().value as string);
    },
    async nearest(list, offset) {
      // Only on a refusal: a scan of at most KEPT entries.
      let best: number | undefined;
      const prefix = keyOf(list, 0).slice(0, -1);
      for (const [key, end] of ends) {
        if (!key.startsWith(prefix) || !fresh(end)) continue;
        const at = Number(key.slice(prefix.length));
        if (at < offset && (best === undefined || at > best)) best = at;
      }
      return best;
    },
  };
}
