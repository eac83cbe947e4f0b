const DAY_SECONDS = 86_400;

/** A range of hours read as whole days from usage_days and the hours at its two edges from usage_hours. */
export interface UsageSpans {
  /** Whole days inside the range: fromDay <= day < toDay (empty when equal). */
  days: [number, number];
  /** The hours before the first whole day, and those after the last. */
  head: [number, number];
  tail: [number, number];
}

/**
 * Splits fromHour <= hour < toHour (whole hours, seconds since the epoch) so that at most 23
 * hours at each edge are read one by one: a month costs its 31 day rows and 46 hour rows at
 * most, not its 744 hours.
 */
export function usageSpans(fromHour: number, toHour: number): UsageSpans {
  const firstDay = Math.ceil(fromHour / DAY_SECONDS) * DAY_SECONDS;
  const lastDay = Math.floor(toHour / DAY_SECONDS) * DAY_SECONDS;
  if (firstDay >= lastDay) return { days: [0, 0], head: [fromHour, toHour], tail: [0, 0] };
  return { days: [firstDay, lastDay], head: [fromHour, firstDay], tail: [lastDay, toHour] };
}

/** The day a usage hour belongs to (UTC, as billing periods are). */
export const dayOf = (hour: number): number => hour - (hour % DAY_SECONDS);
