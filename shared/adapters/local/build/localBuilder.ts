import { mkdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BundleLimits } from '../../../domain/bundleLimits.js';
import type { BuildStatus } from '../../../domain/buildStatus.js';
import { UNFINISHED_BUILD_STATUSES } from '../../../domain/buildStatus.js';
import { defaultPackagesFor } from '../../../domain/defaultPackages.js';
import { versionLogStream } from '../../../domain/log.js';
import type { VersionPatch, VersionRecord } from '../../../domain/version.js';
import type { Artifacts } from '../../../ports/artifacts.js';
import type { Builder } from '../../../ports/builder.js';
import type { Clock } from '../../../ports/clock.js';
import type { Store } from '../../../ports/store.js';
import type { Telemetry } from '../../../ports/telemetry.js';
import { NO_TELEMETRY } from '../../../ports/telemetry.js';
import { extractBundle } from '../../../packaging/bundleReader.js';
import type { OpenLogLines } from '../../../ports/logLines.js';
import { BuildFailure } from './buildFailure.js';
import type { PythonEnvironments } from './pythonEnvironments.js';
import type { ImportCheckOptions } from './importCheck.js';
import { checkImports } from './importCheck.js';
import { findPythonInterpreter } from './pythonInterpreters.js';
import type { SystemPackageInstall } from './systemPackages.js';
import { ensureSystemPackages } from './systemPackages.js';

export interface LocalBuilderOptions {
  store: Store;
  artifacts: Artifacts;
  clock: Clock;
  /** Where each build's lines go (its version's build log). */
  openLog: OpenLogLines;
  environments: PythonEnvironments;
  /** How the built code's import is checked (the sandbox replicas run in). */
  importCheck: ImportCheckOptions;
  /** Where each version's code and environment link go: <versionsFolder>/<id>/{code,venv}. */
  versionsFolder: string;
  defaultPython: string;
  /** Interpreters the operator names (SLUICE_PYTHON_INTERPRETERS), looked at before the usual places. */
  pythonInterpreters?: readonly string[];
  /** Whether missing system_packages are installed (SLUICE_INSTALL_SYSTEM_PACKAGES); default: checked only. */
  installSystemPackages?: SystemPackageInstall;
  /** Checked at deploy already; held again while unpacking, should a bundle have changed since. */
  bundleLimits: BundleLimits;
  onError: (error: unknown, versionId: string) => void;
  /** Each state a build reaches (the service log, metrics). */
  telemetry?: Telemetry;
}

/**
 * Builds versions on this machine: building (interpreter, system packages, venv with the
 * default packages and the python_packages), pushing (the code unpacked into the version's
 * folder), deploying, ready.
 * Every step's output goes to the version's build logs.
 */
export class LocalBuilder implements Builder {
  private readonly running = new Map<string, Promise<void>>();
  private finished: (version: VersionRecord) => Promise<void> = async () => undefined;

  constructor(private readonly options: LocalBuilderOptions) {}

  /** Called when a build ends, ready or in error (jobs waiting for it go on from there). */
  onBuildFinished(listener: (version: VersionRecord) => Promise<void>): void {
    this.finished = listener;
  }

  /** Resolves once queued: the build runs in the background, so a deploy answers at once. */
  async enqueue(versionId: string): Promise<void> {
    if (this.running.has(versionId)) return;
    const build = this.build(versionId)
      .catch((error: unknown) => this.options.onError(error, versionId))
      .finally(() => this.running.delete(versionId));
    this.running.set(versionId, build);
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }

  /** Builds that a stopped service left unfinished start again from the beginning. */
  async resumeUnfinished(): Promise<void> {
    for (const version of await this.options.store.versions.listByBuildStatus(UNFINISHED_BUILD_STATUSES)) await this.enqueue(version.id);
  }

  private async build(versionId: string): Promise<void> {
    const { store, clock } = this.options;
    const version = await store.versions.transition(versionId, UNFINISHED_BUILD_STATUSES, { buildStatus: 'building' });
    if (!version) return;
    this.reached(version);
    const log = this.options.openLog({
      stream: versionLogStream(version.id),
      organizationId: version.organizationId,
      functionId: version.functionId,
      jobId: '',
      runId: version.id,
      stage: 'build',
    });
    const say = (line: string) => log.write(line);
    let environment: string | undefined;
    try {
      say(`Building version ${version.id}`);
      const { defaultPython, pythonInterpreters: extra, installSystemPackages: install = 'off' } = this.options;
      const interpreter = await findPythonInterpreter(version.pythonVersion, { defaultPython, extra });
      say(`Using Python ${interpreter.version} at ${interpreter.executable}`);
      await ensureSystemPackages(version.systemPackages, { install, say });
      const contents = { packages: version.pythonPackages, runCommands: version.runCommands ?? [], defaults: defaultPackagesFor(version.pythonPackages) };
      environment = await this.options.environments.ensure(interpreter, contents, say);
      await this.move(version, 'building', { buildStatus: 'pushing', builtAt: clock.now() });
      say('Installing the code');
      await this.installCode(version, environment);
      await checkImports(this.options.importCheck, version, join(this.options.versionsFolder, version.id, 'code'), environment, say);
      await this.move(version, 'pushing', { buildStatus: 'deploying' });
      // Replicas start on demand, so a local version is ready once its code is in place and imports.
      const ready = await this.move(version, 'deploying', { buildStatus: 'ready', readyAt: clock.now() });
      say('Ready');
      await this.finished(ready);
    } catch (error) {
      const reason = error instanceof BuildFailure ? error.message : `Internal build error: ${(error as Error).message}`;
      say(`Build failed: ${reason}`);
      // A failed version never runs: its code folder, if the failure came after it, goes too.
      await rm(join(this.options.versionsFolder, version.id), { recursive: true, force: true });
      if (environment !== undefined) await this.options.environments.discard(environment);
      const failed = await store.versions.transition(version.id, UNFINISHED_BUILD_STATUSES, { buildStatus: 'error', buildError: reason });
      if (failed) this.reached(failed);
      if (!(error instanceof BuildFailure)) this.options.onError(error, version.id);
      if (failed) await this.finished(failed);
    } finally {
      await log.flush();
    }
  }

  private async move(version: VersionRecord, from: BuildStatus, patch: VersionPatch): Promise<VersionRecord> {
    const moved = await this.options.store.versions.transition(version.id, [from], patch);
    if (!moved) throw new BuildFailure(`The version left the ${from} state while it was being built.`);
    this.reached(moved);
    return moved;
  }

  private reached(version: VersionRecord): void {
    (this.options.telemetry ?? NO_TELEMETRY).record({ kind: 'build', version, status: version.buildStatus });
  }

  /**
   * Unpacks the bundle and links the environment, in a scratch folder renamed into place. The
   * scratch folder is removed whatever goes wrong, so a refused bundle leaves nothing behind.
   */
  private async installCode(version: VersionRecord, environment: string): Promise<void> {
    const bundle = await this.options.artifacts.readBundle(version.id);
    if (!bundle) throw new BuildFailure('The code bundle of this version is missing.');
    const target = join(this.options.versionsFolder, version.id);
    const scratch = `${target}.partial`;
    await rm(scratch, { recursive: true, force: true });
    try {
      await mkdir(join(scratch, 'code'), { recursive: true });
      try {
        await extractBundle(bundle, join(scratch, 'code'), this.options.bundleLimits);
      } catch (error) {
        throw new BuildFailure(`The code bundle could not be unpacked: ${(error as Error).message}`);
      }
      await symlink(environment, join(scratch, 'venv'));
      await rm(target, { recursive: true, force: true });
      await rename(scratch, target);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
