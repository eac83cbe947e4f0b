import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import type { VersionRecord } from '../../shared/domain/version.js';
import { BuildProgress } from '../../shared/services/buildProgress.js';
import { aVersion } from '../support/fixtures.js';

async function setup() {
  const store = createSqliteStore(':memory:');
  const finished: VersionRecord[] = [];
  const progress = new BuildProgress(store, createSystemClock(), async (version) => void finished.push(version));
  const version = aVersion({ buildStatus: 'queued' });
  await store.versions.create(version);
  return { store, progress, version, finished };
}

describe('BuildProgress (a remote build reporting its states)', () => {
  it('moves forward through the states, stamping built_at on pushing and ready_at on ready', async () => {
    const { progress, version, finished } = await setup();
    for (const state of ['building', 'pushing', 'deploying'] as const) expect((await progress.advance(version.id, state))?.buildStatus).toBe(state);
    const ready = await progress.advance(version.id, 'ready');
    expect(ready?.builtAt).not.toBeNull();
    expect(ready?.readyAt).not.toBeNull();
    expect(finished.map((v) => v.buildStatus)).toEqual(['ready']);
  });

  it('skips states whose events never came, and ignores late events for earlier states', async () => {
    const { progress, version } = await setup();
    expect((await progress.advance(version.id, 'deploying'))?.buildStatus).toBe('deploying');
    expect(await progress.advance(version.id, 'building')).toBeNull();
  });

  it('ends in error with the reason, once, and tells the jobs that waited', async () => {
    const { progress, version, finished } = await setup();
    expect((await progress.advance(version.id, 'error', 'pip failed'))?.buildError).toBe('pip failed');
    expect(await progress.advance(version.id, 'ready')).toBeNull();
    expect(finished.map((v) => v.buildStatus)).toEqual(['error']);
  });
});
