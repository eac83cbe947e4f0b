/** A version's build moves forward through these states; `ready` and `error` are final. */
export const BUILD_STATUSES = ['queued', 'building', 'pushing', 'deploying', 'ready', 'error'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

export const UNFINISHED_BUILD_STATUSES: readonly BuildStatus[] = ['queued', 'building', 'pushing', 'deploying'];

const NEXT: Record<BuildStatus, readonly BuildStatus[]> = {
  queued: ['building', 'error'],
  building: ['pushing', 'error'],
  pushing: ['deploying', 'error'],
  deploying: ['ready', 'error'],
  ready: [],
  error: [],
};

export function canMoveBuild(from: BuildStatus, to: BuildStatus): boolean {
  return NEXT[from].includes(to);
}

export function isFinalBuildStatus(status: BuildStatus): boolean {
  return NEXT[status].length === 0;
}
