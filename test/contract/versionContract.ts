import { describe, expect, it } from 'vitest';
import type { VersionRecord } from '../../shared/domain/version.js';
import { aVersion } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const ids = (versions: VersionRecord[]) => versions.map((version) => version.id);

export function describeVersionContract(store: CurrentStore): void {
  const createAll = async (versions: VersionRecord[]) => {
    for (const version of versions) await store().versions.create(version);
    return versions;
  };

  describe('versions', () => {
    it('get returns the version as created, every field included', async () => {
      const version = aVersion();
      await store().versions.create(version);
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it('get round-trips a finished version with its times, error and replica bounds', async () => {
      const version = aVersion({
        buildStatus: 'error',
        builtAt: 5,
        readyAt: 6,
        buildError: 'pip failed:\n  no such package',
        cudaVersion: '12.4',
        maximumReplicas: 3,
      });
      await store().versions.create(version);
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it('get returns null for an unknown id', async () => {
      expect(await store().versions.get('no-such-id')).toBeNull();
    });

    it('create refuses a second version with the same id', async () => {
      const version = aVersion();
      await store().versions.create(version);
      await expect(store().versions.create(aVersion({ id: version.id, functionId: 'function-2' }))).rejects.toThrow();
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it("findByPrefix returns the function's versions whose id starts with the prefix", async () => {
      const [abc1, abc2] = await createAll([
        aVersion({ id: 'abc-1', createdAt: 1 }),
        aVersion({ id: 'abc-2', createdAt: 2 }),
        aVersion({ id: 'abd-1', createdAt: 3 }),
      ]);
      expect(ids(await store().versions.findByPrefix('function-1', 'abc', 10)).sort()).toEqual(ids([abc1!, abc2!]));
      expect(await store().versions.findByPrefix('function-1', 'abc-1', 10)).toEqual([abc1]);
      expect(await store().versions.findByPrefix('function-1', 'x', 10)).toEqual([]);
    });

    it('findByPrefix matches % and _ literally, never as wildcards', async () => {
      await createAll([aVersion({ id: 'a1b' }), aVersion({ id: 'a%c' }), aVersion({ id: 'a_d' })]);
      expect(ids(await store().versions.findByPrefix('function-1', 'a%', 10))).toEqual(['a%c']);
      expect(ids(await store().versions.findByPrefix('function-1', 'a_', 10))).toEqual(['a_d']);
      expect(await store().versions.findByPrefix('function-1', '%', 10)).toEqual([]);
      expect(await store().versions.findByPrefix('function-1', '_', 10)).toEqual([]);
    });

    it('findByPrefix returns at most limit versions, enough to tell a prefix is ambiguous', async () => {
      await createAll(['ab1', 'ab2', 'ab3'].map((id, index) => aVersion({ id, createdAt: index })));
      expect(await store().versions.findByPrefix('function-1', 'ab', 2)).toHaveLength(2);
    });

    it("findByPrefix ignores other functions' versions", async () => {
      await createAll([aVersion({ id: 'ab1', functionId: 'function-1' }), aVersion({ id: 'ab2', functionId: 'function-2' })]);
      expect(ids(await store().versions.findByPrefix('function-2', 'ab', 10))).toEqual(['ab2']);
    });

    it("listByFunction returns the function's versions newest first", async () => {
      const [old, newest, middle] = await createAll([aVersion({ createdAt: 100 }), aVersion({ createdAt: 300 }), aVersion({ createdAt: 200 })]);
      await store().versions.create(aVersion({ functionId: 'function-2', createdAt: 250 }));
      expect(await store().versions.listByFunction('function-1', { limit: 10, offset: 0 })).toEqual([newest, middle, old]);
    });

    it('listByFunction orders versions created the same microsecond by id, descending', async () => {
      await createAll(['b', 'c', 'a'].map((id) => aVersion({ id, createdAt: 100 })));
      expect(ids(await store().versions.listByFunction('function-1', { limit: 10, offset: 0 }))).toEqual(['c', 'b', 'a']);
    });

    it('listByFunction honours limit and offset', async () => {
      await createAll([1, 2, 3, 4, 5].map((n) => aVersion({ id: `v${n}`, createdAt: n })));
      const page = async (limit: number, offset: number) => ids(await store().versions.listByFunction('function-1', { limit, offset }));
      expect(await page(2, 0)).toEqual(['v5', 'v4']);
      expect(await page(2, 2)).toEqual(['v3', 'v2']);
      expect(await page(2, 4)).toEqual(['v1']);
      expect(await page(2, 5)).toEqual([]);
    });

    it('latestReady returns the newest ready version, passing over newer unfinished or failed ones', async () => {
      await createAll([
        aVersion({ id: 'old-ready', createdAt: 1, buildStatus: 'ready' }),
        aVersion({ id: 'ready', createdAt: 2, buildStatus: 'ready' }),
        aVersion({ id: 'failed', createdAt: 3, buildStatus: 'error' }),
        aVersion({ id: 'building', createdAt: 4, buildStatus: 'building' }),
        aVersion({ id: 'other-function', functionId: 'function-2', createdAt: 5, buildStatus: 'ready' }),
      ]);
      expect((await store().versions.latestReady('function-1'))?.id).toBe('ready');
    });

    it('latestReady returns null when no version is ready', async () => {
      await createAll([aVersion({ buildStatus: 'building' }), aVersion({ buildStatus: 'error' })]);
      expect(await store().versions.latestReady('function-1')).toBeNull();
      expect(await store().versions.latestReady('function-none')).toBeNull();
    });

    it('transition applies the patch when the status is one of `from`, and returns the updated version', async () => {
      const version = aVersion({ buildStatus: 'deploying' });
      await store().versions.create(version);
      const expected = { ...version, buildStatus: 'ready', builtAt: 10, readyAt: 20 };
      expect(await store().versions.transition(version.id, ['pushing', 'deploying'], { buildStatus: 'ready', builtAt: 10, readyAt: 20 })).toEqual(expected);
      expect(await store().versions.get(version.id)).toEqual(expected);
    });

    it('transition returns null and changes nothing when the status is not one of `from`', async () => {
      const version = aVersion({ buildStatus: 'ready' });
      await store().versions.create(version);
      expect(await store().versions.transition(version.id, ['queued', 'building'], { buildStatus: 'error', buildError: 'late' })).toBeNull();
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it('transition counts failed worker tasks of a ready version, and keeps the count', async () => {
      const version = aVersion({ buildStatus: 'ready' });
      await store().versions.create(version);
      expect(await store().versions.transition(version.id, ['ready'], { taskFailures: 2 })).toEqual({ ...version, taskFailures: 2 });
      expect((await store().versions.get(version.id))?.taskFailures).toBe(2);
    });

    it('transition sets and clears the capacity shortage a ready version shows', async () => {
      const version = aVersion({ buildStatus: 'ready' });
      await store().versions.create(version);
      await store().versions.transition(version.id, ['ready'], { capacityShortage: 'waiting for a t4 instance' });
      expect((await store().versions.get(version.id))?.capacityShortage).toBe('waiting for a t4 instance');
      await store().versions.transition(version.id, ['ready'], { capacityShortage: null });
      expect((await store().versions.get(version.id))?.capacityShortage ?? null).toBeNull();
    });

    it('transition returns null for an unknown id and creates nothing', async () => {
      expect(await store().versions.transition('no-such-id', ['queued'], { buildStatus: 'building' })).toBeNull();
      expect(await store().versions.get('no-such-id')).toBeNull();
    });

    it('transition writes null values and leaves fields outside the patch as they were', async () => {
      const version = aVersion({ buildStatus: 'building', builtAt: 7, buildError: 'stale' });
      await store().versions.create(version);
      const updated = await store().versions.transition(version.id, ['building'], { buildStatus: 'pushing', buildError: null });
      expect(updated).toEqual({ ...version, buildStatus: 'pushing', buildError: null });
    });

    it('transition with an empty patch only checks the guard', async () => {
      const version = aVersion({ buildStatus: 'building' });
      await store().versions.create(version);
      expect(await store().versions.transition(version.id, ['building'], {})).toEqual(version);
      expect(await store().versions.transition(version.id, ['queued'], {})).toBeNull();
    });

    it('of two racing transitions from the same status, exactly one wins', async () => {
      const version = aVersion({ buildStatus: 'queued' });
      await store().versions.create(version);
      const results = await Promise.all([
        store().versions.transition(version.id, ['queued'], { buildStatus: 'building' }),
        store().versions.transition(version.id, ['queued'], { buildStatus: 'error', buildError: 'cancelled' }),
      ]);
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await store().versions.get(version.id)).toEqual(winners[0]);
    });

    it('listByBuildStatus returns the versions in any of the statuses, oldest first, across functions', async () => {
      await createAll([
        aVersion({ id: 'building', createdAt: 3, buildStatus: 'building' }),
        aVersion({ id: 'ready', createdAt: 1, buildStatus: 'ready' }),
        aVersion({ id: 'queued', createdAt: 2, buildStatus: 'queued', functionId: 'function-2' }),
        aVersion({ id: 'error', createdAt: 4, buildStatus: 'error' }),
      ]);
      expect(ids(await store().versions.listByBuildStatus(['queued', 'building']))).toEqual(['queued', 'building']);
      expect(await store().versions.listByBuildStatus(['deploying'])).toEqual([]);
    });

    it('listByBuildStatus with createdBefore returns only the versions created before it', async () => {
      await createAll([
        aVersion({ id: 'old', createdAt: 10, buildStatus: 'queued' }),
        aVersion({ id: 'older', createdAt: 5, buildStatus: 'queued', functionId: 'function-2' }),
        aVersion({ id: 'at the bound', createdAt: 20, buildStatus: 'queued' }),
        aVersion({ id: 'new', createdAt: 30, buildStatus: 'queued' }),
        aVersion({ id: 'old but building', createdAt: 1, buildStatus: 'building' }),
      ]);
      expect(ids(await store().versions.listByBuildStatus(['queued'], 20))).toEqual(['older', 'old']);
      expect(await store().versions.listByBuildStatus(['queued'], 5)).toEqual([]);
    });

    it('transition with no `from` statuses never applies', async () => {
      const version = aVersion({ buildStatus: 'queued' });
      await store().versions.create(version);
      expect(await store().versions.transition(version.id, [], { buildStatus: 'building' })).toBeNull();
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it('listByBuildStatus with no statuses returns nothing', async () => {
      await store().versions.create(aVersion());
      expect(await store().versions.listByBuildStatus([])).toEqual([]);
    });

    it('listByBuildStatus sees the status a transition wrote', async () => {
      const version = aVersion({ buildStatus: 'queued' });
      await store().versions.create(version);
      await store().versions.transition(version.id, ['queued'], { buildStatus: 'building' });
      expect(await store().versions.listByBuildStatus(['queued'])).toEqual([]);
      expect(ids(await store().versions.listByBuildStatus(['building']))).toEqual([version.id]);
    });

    it('setReplicaBounds changes the bounds, whatever the build status, and leaves every other field', async () => {
      const version = aVersion({ buildStatus: 'ready', minimumReplicas: 0, maximumReplicas: null });
      await store().versions.create(version);
      const edited = { ...version, minimumReplicas: 2, maximumReplicas: 5 };
      expect(await store().versions.setReplicaBounds(version.id, { minimumReplicas: 2, maximumReplicas: 5 })).toEqual(edited);
      expect(await store().versions.get(version.id)).toEqual(edited);
      expect((await store().versions.listByFunction(version.functionId, { limit: 10, offset: 0 }))[0]).toEqual(edited);
      await store().versions.setReplicaBounds(version.id, { minimumReplicas: 0, maximumReplicas: null });
      expect(await store().versions.get(version.id)).toEqual(version);
    });

    it('setReplicaBounds stores a scale-down window and buffer, keeps them when not given, and stores a null window as the default', async () => {
      const version = aVersion({ buildStatus: 'ready' });
      await store().versions.create(version);
      await store().versions.setReplicaBounds(version.id, { minimumReplicas: 1, maximumReplicas: 3, scaledownWindowSeconds: 600, bufferReplicas: 2 });
      expect(await store().versions.get(version.id)).toEqual({
        ...version,
        minimumReplicas: 1,
        maximumReplicas: 3,
        scaledownWindowSeconds: 600,
        bufferReplicas: 2,
      });
      await store().versions.setReplicaBounds(version.id, { minimumReplicas: 0, maximumReplicas: 3 });
      expect(await store().versions.get(version.id)).toMatchObject({ minimumReplicas: 0, scaledownWindowSeconds: 600, bufferReplicas: 2 });
      await store().versions.setReplicaBounds(version.id, { minimumReplicas: 0, maximumReplicas: 3, scaledownWindowSeconds: null, bufferReplicas: 0 });
      expect(await store().versions.get(version.id)).toMatchObject({ scaledownWindowSeconds: null, bufferReplicas: 0 });
    });

    it('setReplicaBounds keeps the bounds through a later build transition', async () => {
      const version = aVersion({ buildStatus: 'building' });
      await store().versions.create(version);
      await store().versions.setReplicaBounds(version.id, { minimumReplicas: 1, maximumReplicas: 3 });
      const ready = await store().versions.transition(version.id, ['building'], { buildStatus: 'ready', readyAt: 9 });
      expect(ready).toMatchObject({ buildStatus: 'ready', minimumReplicas: 1, maximumReplicas: 3 });
    });

    it('setReplicaBounds answers null for an unknown version, creating nothing', async () => {
      expect(await store().versions.setReplicaBounds('no-such-id', { minimumReplicas: 1, maximumReplicas: 1 })).toBeNull();
      expect(await store().versions.get('no-such-id')).toBeNull();
    });
  });
}
