import { PAGE_END_KEPT_S, type ListKey } from '../../domain/listOffsets.js';
import type { PageEndStore } from '../../ports/pageEnds.js';

interface PageEnd extends ListKey {
  /** When the page was served (milliseconds). */
  servedAt: number;
}

/**
 * How many page ends each organization keeps (its oldest go first): a walk needs one at a time,
 * and one organization's pages never push another's out.
 */
const KEPT_PER_ORGANIZATION = 16_384;

/**
 * Page ends in this process's memory: the local service is one process, and a page end lost
 * with it only makes the next deep page of a walk ask again from an offset it was handed.
 */
export function memoryPageEnds(now: () => number = Date.now): PageEndStore {
  /** By organization (a list name's prefix), then `list` and offset, oldest first. */
  const ends = new Map<string, Map<string, PageEnd>>();
  const organizationOf = (list: string) => list.slice(0, list.indexOf(':'));
  const keyOf = (list: string, offset: number) => `${list}\u0000${offset}`;
  const within = (end: PageEnd | undefined, seconds: number): end is PageEnd => end !== undefined && now() - end.servedAt <= seconds * 1000;
  return {
    async find(list, offset, maxAgeS) {
      const end = ends.get(organizationOf(list))?.get(keyOf(list, offset));
      return within(end, Math.min(maxAgeS, PAGE_END_KEPT_S)) ? { createdAt: end.createdAt, id: end.id } : undefined;
    },
    async remember(list, offset, after) {
      const organization = organizationOf(list);
      const kept = ends.get(organization) ?? new Map<string, PageEnd>();
      ends.set(organization, kept);
      const key = keyOf(list, offset);
      // Kept as the newest: the oldest are dropped first.
      kept.delete(key);
      kept.set(key, { createdAt: after.createdAt, id: after.id, servedAt: now() });
      while (kept.size > KEPT_PER_ORGANIZATION) kept.delete(kept.keys().next().value as string);
    },
    async nearest(list, offset) {
      // Only on a refusal: a scan of the organization's ends.
      let best: number | undefined;
      const prefix = keyOf(list, 0).slice(0, -1);
      for (const [key, end] of ends.get(organizationOf(list)) ?? []) {
        if (!key.startsWith(prefix) || !within(end, PAGE_END_KEPT_S)) continue;
        const at = Number(key.slice(prefix.length));
        if (at < offset && (best === undefined || at > best)) best = at;
      }
      return best;
    },
  };
}
