/**
 * How many replicas a version keeps up (minimum) and may have (maximum; null: the deployment's
 * default), and how it scales between them: how long an idle replica above the minimum stays
 * for the next job, and how many idle ones are kept ready beyond what its jobs need.
 */
export interface ReplicaBounds {
  minimumReplicas: number;
  maximumReplicas: number | null;
  /** Seconds an idle replica above the minimum stays up (an idle ECS task on AWS); null or absent: the deployment's default. */
  scaledownWindowSeconds?: number | null;
  /** Idle replicas kept up beyond the running and waiting jobs' while the version has any (absent: none). */
  bufferReplicas?: number;
}

/** The most replicas a version may keep or allow, declared or edited. */
export const MAX_REPLICAS = 64;
/** The longest scale-down window: a day (ECS task protection lasts at most 48 hours). */
export const MAX_SCALEDOWN_WINDOW_SECONDS = 86_400;

/** A maximum of null or 0 means none declared: the deployment's default applies. */
export const maximumAllows = (bounds: ReplicaBounds) =>
  bounds.maximumReplicas === null || bounds.maximumReplicas === 0 || bounds.maximumReplicas >= bounds.minimumReplicas;

/** What is wrong with replica bounds, or null when they are fine. */
export function replicaBoundsProblem(bounds: ReplicaBounds): string | null {
  const { minimumReplicas, maximumReplicas, scaledownWindowSeconds, bufferReplicas } = bounds;
  if (minimumReplicas < 0 || minimumReplicas > MAX_REPLICAS) return `minimum_replicas must be from 0 to ${MAX_REPLICAS}.`;
  if (maximumReplicas !== null && (maximumReplicas < 0 || maximumReplicas > MAX_REPLICAS))
    return `maximum_replicas must be from 0 to ${MAX_REPLICAS}, or null.`;
  if (!maximumAllows(bounds)) return `maximum_replicas (${maximumReplicas}) must be at least minimum_replicas (${minimumReplicas}).`;
  if (
    scaledownWindowSeconds !== null &&
    scaledownWindowSeconds !== undefined &&
    (scaledownWindowSeconds < 0 || scaledownWindowSeconds > MAX_SCALEDOWN_WINDOW_SECONDS)
  )
    return `scaledown_window must be from 0 to ${MAX_SCALEDOWN_WINDOW_SECONDS} seconds, or null for the deployment's default.`;
  if (bufferReplicas !== undefined && (bufferReplicas < 0 || bufferReplicas > MAX_REPLICAS)) return `buffer_replicas must be from 0 to ${MAX_REPLICAS}.`;
  return null;
}

/**
 * The replicas a version wants now: those its running and waiting jobs need plus its buffer
 * while it has any, at least its minimum and at most `cap`.
 */
export function wantedReplicas(bounds: ReplicaBounds, demand: number, cap: number): number {
  const busy = demand > 0 ? demand + (bounds.bufferReplicas ?? 0) : 0;
  return Math.min(cap, Math.max(bounds.minimumReplicas, busy));
}
