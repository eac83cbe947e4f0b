import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadBundle } from '../../cli/uploadBundle.js';
import { LocalBuilder } from '../../shared/adapters/local/build/localBuilder.js';
import { probe } from '../../shared/adapters/local/build/pythonInterpreters.js';
import { NO_SANDBOX } from '../../shared/adapters/local/sandbox/sandbox.js';
import { PythonEnvironments } from '../../shared/adapters/local/build/pythonEnvironments.js';
import { createFileArtifacts } from '../../shared/adapters/local/fileArtifacts.js';
import { LocalUploads } from '../../shared/adapters/local/localUploads.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { LogWriter } from '../../shared/services/logWriter.js';
import { inspectFunctions } from '../../shared/packaging/inspectFunctions.js';
import { aVersion } from '../support/fixtures.js';
import type { TarEntry } from './support/hostileBundles.js';
import { gzippedTar, MAIN_PY } from './support/hostileBundles.js';
import type { TestService } from './support/testService.js';
import { api, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

const MB = 1024 * 1024;
const LIMIT_MB = 32;
const MAX_FILES = 50;

/** What the data directory holds under a folder (empty when the folder is absent). */
const entriesOf = (folder: string) => (existsSync(folder) ? readdirSync(folder) : []);

describe('deploy bundle limits (a hostile organization deploying bombs and escapes)', () => {
  let service: TestService;
  let metadata: unknown;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  /** Deploys `bundle` as `sluice deploy` does: an upload, then the deploy naming it. */
  const deploy = async (bundle: Buffer) => {
    const uploadId = await uploadBundle({ url: service.url, apiKey: service.key }, bundle);
    return call('POST', '/v2/functions/local/bomb/versions', { metadata, upload_id: uploadId });
  };
  const withMain = (entries: TarEntry[]) => gzippedTar([{ path: 'main.py', content: MAIN_PY }, ...entries]);
  /** Nothing of a refused deploy stays: no function, no bundle, no version folder, no partial one. */
  const expectNothingKept = async () => {
    expect((await call('GET', '/v2/functions/local/bomb')).status).toBe(404);
    expect(entriesOf(join(service.dataDir, 'bundles'))).toEqual([]);
    expect(entriesOf(join(service.dataDir, 'versions'))).toEqual([]);
  };

  beforeAll(async () => {
    service = await startTestService({ SLUICE_MAX_BUNDLE_UNPACKED_MB: String(LIMIT_MB), SLUICE_MAX_BUNDLE_FILES: String(MAX_FILES) });
    const inspected = await inspectFunctions(await writeFunctionDir({ 'main.py': MAIN_PY }), 'python3');
    if (!inspected.ok) throw new Error(inspected.errors.join('; '));
    metadata = inspected.functions[0];
  });
  afterAll(() => service.close());

  it('refuses a gzip bomb at deploy with 413 naming the limit, without inflating it in memory', async () => {
    const bomb = await withMain([{ path: 'weights.bin', size: 512 * MB }]);
    expect(bomb.length).toBeLessThan(4 * MB);
    const before = process.memoryUsage.rss();
    const started = performance.now();
    const { status, body } = await deploy(bomb);
    expect(status).toBe(413);
    expect(body.detail).toMatch(/unpacks to more than 32 MB.*SLUICE_MAX_BUNDLE_UNPACKED_MB/);
    // Refused at the entry's header: neither its 512 MB nor the time to inflate them are spent.
    expect(process.memoryUsage.rss() - before).toBeLessThan(64 * MB);
    expect(performance.now() - started).toBeLessThan(2000);
    await expectNothingKept();
  });

  it('refuses a bomb of many files, each within the limit, once their sum passes it', async () => {
    const { status, body } = await deploy(await withMain(Array.from({ length: 20 }, (_, i) => ({ path: `part-${i}.bin`, size: 4 * MB }))));
    expect(status).toBe(413);
    expect(body.detail).toContain('SLUICE_MAX_BUNDLE_UNPACKED_MB');
    await expectNothingKept();
  });

  it('refuses a bomb hidden after the end of the archive, where no header counts it', async () => {
    const tar = await withMain([]);
    const { status, body } = await deploy(Buffer.concat([tar, await gzippedTar([{ path: 'padding', size: 200 * MB }])]));
    expect(status).toBe(413);
    expect(body.detail).toContain('SLUICE_MAX_BUNDLE_UNPACKED_MB');
    await expectNothingKept();
  });

  it('refuses more files than SLUICE_MAX_BUNDLE_FILES with 413', async () => {
    const { status, body } = await deploy(await withMain(Array.from({ length: MAX_FILES }, (_, i) => ({ path: `empty/${i}.txt`, size: 0 }))));
    expect(status).toBe(413);
    expect(body.detail).toBe(`The bundle holds more than ${MAX_FILES} files and folders, the limit (SLUICE_MAX_BUNDLE_FILES).`);
    await expectNothingKept();
  });

  it.each<[string, TarEntry]>([
    ['a path out of the folder', { path: '../../escaped.py', content: 'owned = True' }],
    ['an absolute path', { path: '/tmp/sluice-escaped.py', content: 'owned = True' }],
    ['a symbolic link', { path: 'secrets', type: '2', linkpath: '/etc' }],
    ['a hard link', { path: 'passwd', type: '1', linkpath: '/etc/passwd' }],
  ])('refuses %s with 422 and creates nothing', async (_what, entry) => {
    const { status, body } = await deploy(await withMain([entry]));
    expect(status).toBe(422);
    expect(body.detail).toContain(`"${entry.path}"`);
    await expectNothingKept();
  });

  it('refuses an inline bundle under the same rules', async () => {
    const bundle = (await withMain([{ path: 'weights.bin', size: 64 * MB }])).toString('base64');
    const { status, body } = await call('POST', '/v2/functions/local/bomb/versions', { metadata, bundle });
    expect(status).toBe(413);
    expect(body.detail).toContain('SLUICE_MAX_BUNDLE_UNPACKED_MB');
  });

  it('refuses what is not a gzipped tar with 422', async () => {
    const { status, body } = await deploy(Buffer.from('\x1f\x8bnot really gzip'));
    expect(status).toBe(422);
    expect(body.detail).toMatch(/not a gzipped tar/);
  });

  it('deploys and runs a bundle within the limits', async () => {
    const { status, body } = await deploy(await withMain([{ path: 'data/weights.bin', size: 8 * MB }]));
    expect(status).toBe(201);
    expect((await waitForBuild(service, 'local/bomb', body.version.id)).build_status).toBe('ready');
    const { body: pushed } = await call('POST', '/v2/push', { function: 'local/bomb', inputs: {} });
    expect((await call('GET', `/v2/jobs/${pushed.id}/await`)).body.outputs[0].data).toBe('ran');
    expect(entriesOf(join(service.dataDir, 'versions'))).toEqual([body.version.id]);
  });
});

describe('the local build unpacking a bundle (one that passed under looser limits, or changed since its deploy)', () => {
  let dataDir = '';
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('ends the version in error naming the limit, and leaves no code folder, partial or whole', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-build-limits-'));
    const store = createSqliteStore(join(dataDir, 'sluice.db'));
    const clock = createSystemClock();
    const artifacts = createFileArtifacts(dataDir, new LocalUploads({ folder: join(dataDir, 'uploads'), publicUrl: () => 'http://127.0.0.1:0', clock }));
    const python = await probe('python3');
    const builder = new LocalBuilder({
      store,
      artifacts,
      clock,
      openLog: (labels) => new LogWriter(store.logs, clock, labels),
      environments: new PythonEnvironments({
        folder: join(dataDir, 'envs'),
        scratchFolder: join(dataDir, 'scratch', 'builds'),
        pipArgs: [],
        sandbox: NO_SANDBOX,
      }),
      versionsFolder: join(dataDir, 'versions'),
      importCheck: { sandbox: NO_SANDBOX, scratchFolder: join(dataDir, 'scratch', 'builds') },
      defaultPython: 'python3',
      bundleLimits: { maxUnpackedBytes: LIMIT_MB * MB, maxEntries: MAX_FILES },
      onError: (error) => {
        throw error;
      },
    });
    // Within the limit for its first 8 files, whose bytes are written before the 9th is refused.
    const version = aVersion({ pythonVersion: python?.version, pythonPackages: [], systemPackages: [] });
    await store.versions.create(version);
    await artifacts.putBundle(version.id, await gzippedTar(Array.from({ length: 12 }, (_, i) => ({ path: `part-${i}.bin`, size: 4 * MB }))));
    await builder.enqueue(version.id);
    await builder.idle();
    const built = await store.versions.get(version.id);
    expect(built?.buildStatus).toBe('error');
    expect(built?.buildError).toBe(
      `The code bundle could not be unpacked: The bundle unpacks to more than ${LIMIT_MB} MB, the limit (SLUICE_MAX_BUNDLE_UNPACKED_MB).`,
    );
    expect(entriesOf(join(dataDir, 'versions'))).toEqual([]);
    await store.close();
  });
});
