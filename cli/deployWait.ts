export interface DeployWait {
  /** How long to follow one version's build before giving up on it (the build goes on). */
  timeoutMs: number;
  /** A version in one state with no new log line this long gets a hint of where to look. */
  stallMs: number;
}

/** An hour covers a large CUDA image's first build; a stall hint after five quiet minutes. */
export const DEFAULT_DEPLOY_WAIT: DeployWait = { timeoutMs: 60 * 60_000, stallMs: 5 * 60_000 };
