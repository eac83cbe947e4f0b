import type { BuildStatus } from '../domain/buildStatus.js';
import { BUILD_STATUSES } from '../domain/buildStatus.js';
import type { VersionPatch, VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Telemetry } from '../ports/telemetry.js';
import { NO_TELEMETRY } from '../ports/telemetry.js';
import { appendVersionLog } from './versionLog.js';

/**
 * Moves a version's build forward as a remote builder reports it (on AWS: CodeBuild's events,
 * then the ECS deploy). Events can arrive late or twice: a move is made only forward, from any
 * earlier unfinished state, and a final state ends the jobs that waited for the build.
 */
export class BuildProgress {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onFinished: (version: VersionRecord) => Promise<void>,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {}

  /**
   * `lines` (the builder's own log, on AWS CodeBuild's) go to the version's log before the
   * move, with the failure's reason, so `sluice deploy` shows them as it does locally.
   */
  async advance(versionId: string, to: BuildStatus, reason?: string, lines: string[] = []): Promise<VersionRecord | null> {
    if (lines.length > 0 || to === 'error') await this.log(versionId, to === 'error' ? [...lines, `Build failed: ${reason ?? 'The build failed.'}`] : lines);
    const order = BUILD_STATUSES.indexOf(to);
    const from = to === 'error' ? BUILD_STATUSES.slice(0, 4) : BUILD_STATUSES.slice(0, Math.min(order, 4));
    const patch: VersionPatch = { buildStatus: to };
    if (to === 'pushing') patch.builtAt = this.clock.now();
    if (to === 'ready') patch.readyAt = this.clock.now();
    if (to === 'error') patch.buildError = reason ?? 'The build failed.';
    const moved = await this.store.versions.transition(versionId, from, patch);
    if (moved) this.telemetry.record({ kind: 'build', version: moved, status: to });
    if (moved && (to === 'ready' || to === 'error')) await this.onFinished(moved);
    return moved;
  }

  private async log(versionId: string, lines: string[]): Promise<void> {
    const version = await this.store.versions.get(versionId);
    if (version) await appendVersionLog(this.store, this.clock, version, 'build', lines);
  }
}
