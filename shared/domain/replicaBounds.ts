/** How many replicas a version keeps up (minimum) and may have (maximum; null: the deployment's default). */
export interface ReplicaBounds {
  minimumReplicas: number;
  maximumReplicas: number | null;
}

/** The most replicas a version may keep or allow, declared or edited. */
export const MAX_REPLICAS = 64;

/** A maximum of null or 0 means none declared: the deployment's default applies. */
export const maximumAllows = (bounds: ReplicaBounds) =>
  bounds.maximumReplicas === null || bounds.maximumReplicas === 0 || bounds.maximumReplicas >= bounds.minimumReplicas;

/** What is wrong with replica bounds, or null when they are fine. */
export function replicaBoundsProblem(bounds: ReplicaBounds): string | null {
  const { minimumReplicas, maximumReplicas } = bounds;
  if (minimumReplicas < 0 || minimumReplicas > MAX_REPLICAS) return `minimum_replicas must be from 0 to ${MAX_REPLICAS}.`;
  if (maximumReplicas !== null && (maximumReplicas < 0 || maximumReplicas > MAX_REPLICAS))
    return `maximum_replicas must be from 0 to ${MAX_REPLICAS}, or null.`;
  if (!maximumAllows(bounds)) return `maximum_replicas (${maximumReplicas}) must be at least minimum_replicas (${minimumReplicas}).`;
  return null;
}
