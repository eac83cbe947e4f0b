import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from './support/serviceProcess.js';
import { startServiceProcess, stopServiceProcess } from './support/serviceProcess.js';
import { api, deployDirectory, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Room for a build's scratch environment (pip's installer) and the service's files. */
const FILESYSTEM_MB = 96;
/** Inputs large enough that the WAL must grow within a few pushes (it reuses the room it has first). */
const LARGE_TEXT = 'x'.repeat(256 * 1024);
const MAX_PUSHES_WHILE_FULL = 200;

const LENGTH = `import sluice

@sluice.function(name="length")
def length(text: str) -> int:
    print("got", len(text), "characters")
    return len(text)
`;

/** Mounting the small filesystem needs root; CI runs as root (Debian). */
const canMount = process.getuid?.() === 0;

describe.skipIf(!canMount)('a full disk in local mode (the data directory on a small tmpfs; skipped unless run as root, which mount needs)', () => {
  let dataDir: string;
  let service: ServiceProcess;
  /** The service's log (stderr), read so its pipe never fills, and shown when a spec fails. */
  let serviceLog = '';
  const start = async () => {
    service = await startServiceProcess(dataDir, {}, []);
    service.child.stderr.on('data', (chunk: Buffer) => (serviceLog = (serviceLog + chunk.toString()).slice(-20_000)));
  };
  /** Every push answered 200: none may be lost. */
  const acknowledged: string[] = [];
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const push = (text: string, headers: Record<string, string> = {}) =>
    fetch(`${service.url}/v2/push`, {
      method: 'POST',
      headers: { 'x-api-key': service.key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ function: 'local/length', inputs: { text } }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));
  /** Writes ballast until the filesystem refuses (dd stops at ENOSPC), leaving no free block. */
  const fill = () => {
    execFileSync('sh', ['-c', `dd if=/dev/zero of="${dataDir}/ballast-${Date.now()}" bs=64k 2>/dev/null; true`]);
    expect(statfsSync(dataDir).bavail).toBe(0);
  };
  const free = () => execFileSync('sh', ['-c', `rm -f "${dataDir}"/ballast*`]);
  /**
   * Pushes large jobs until one is refused: the store's WAL reuses the room it has first. Returns
   * the refusal, with the push's Idempotency-Key.
   */
  const pushUntilRefused = async () => {
    for (let attempt = 0; attempt < MAX_PUSHES_WHILE_FULL; attempt++) {
      const idempotencyKey = `full-${Date.now()}-${attempt}`;
      const answer = await push(LARGE_TEXT, { 'idempotency-key': idempotencyKey });
      if (answer.status !== 200) return { ...answer, idempotencyKey };
      acknowledged.push(answer.body.id);
    }
    throw new Error(`${MAX_PUSHES_WHILE_FULL} pushes were all accepted on a full disk`);
  };
  /** The acknowledged jobs not ended yet, as `id status`. */
  const unended = async () => {
    const statuses = await Promise.all(acknowledged.map(async (id) => `${id} ${(await call('GET', `/v2/jobs/${id}`)).body.status}`));
    return statuses.filter((line) => !/ (finished|error|cancelled)$/.test(line));
  };
  /** Every acknowledged job ends (none lost, none stuck queued or processing). */
  const allEnd = async () => {
    await until(async () => (await unended()).length === 0, 60_000, 250).catch(() => undefined);
    expect(await unended(), serviceLog.slice(-6000)).toEqual([]);
  };
  const integrity = () => {
    const db = new Database(join(dataDir, 'sluice.db'), { readonly: true });
    try {
      return db.pragma('integrity_check', { simple: true });
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-diskfull-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${FILESYSTEM_MB}m`, 'tmpfs', dataDir]);
    await start();
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': LENGTH }));
    const built = await waitForBuild(service, 'local/length', deployed.body.version.id, service.key, 120_000);
    expect(built.build_status, JSON.stringify((await api(service.url, service.key, 'GET', `/v2/logs?version_id=${built.id}`)).body).slice(-3000)).toBe('ready');
    for (let index = 0; index < 3; index++) {
      const pushed = await push(LARGE_TEXT);
      expect(pushed.status).toBe(200);
      acknowledged.push(pushed.body.id);
    }
  }, 180_000);
  afterAll(async () => {
    if (service) await stopServiceProcess(service.child, 'SIGKILL');
    // Lazily: a replica of the killed service may still be leaving the filesystem.
    execFileSync('umount', ['-l', dataDir]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a push with 507 and a detail saying the disk is full, and keeps running', async () => {
    fill();
    const refused = await pushUntilRefused();
    expect(refused).toMatchObject({ status: 507, body: { detail: expect.stringMatching(/^The service's disk is full: /) } });
    expect((await call('GET', '/v2/jobs?limit=1')).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
    // Not ready: a monitor or a load balancer sees what every push is told.
    const health = await fetch(`${service.url}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 503, body: { status: 'unavailable', store: 'ok', disk: 'full' } });
  }, 120_000);

  it('refuses a deploy and an upload with 507 while the disk is full', async () => {
    const upload = await call('POST', '/v2/uploads', { size: 512 * 1024 });
    const put = await fetch(upload.body.upload_url, { method: 'PUT', body: Buffer.alloc(512 * 1024, 1) });
    expect({ status: put.status, body: JSON.parse((await put.text()) || 'null') }).toEqual({
      status: 507,
      body: { detail: expect.stringMatching(/disk is full/) },
    });
    // The CLI's upload is refused first; were it not, the deploy's own write of the bundle would be.
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': LENGTH.replace('"length"', '"length-two"') })).then(
      (answer) => `${answer.status} ${JSON.stringify(answer.body)}`,
      (error: Error) => error.message,
    );
    expect(deployed).toMatch(/507.*disk is full/);
    expect((await call('GET', '/v2/functions/local/length-two')).status).toBe(404);
  }, 60_000);

  it('leaves no Idempotency-Key claimed by a push refused for lack of room', async () => {
    const refused = await pushUntilRefused();
    expect(refused.status).toBe(507);
    free();
    const accepted = await push('after', { 'idempotency-key': refused.idempotencyKey });
    expect(accepted.status).toBe(200);
    expect(acknowledged).not.toContain(accepted.body.id);
    expect((await call('GET', `/v2/jobs/${accepted.body.id}/await`)).body).toMatchObject({ status: 'finished', outputs: [{ data: 5 }] });
  }, 120_000);

  it('once there is room again, accepts pushes, and every job it acknowledged ends', async () => {
    free();
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const after = await push('room again');
    expect(after.status).toBe(200);
    expect((await call('GET', `/v2/jobs/${after.body.id}/await`)).body).toMatchObject({ status: 'finished', outputs: [{ data: 10 }] });
    await allEnd();
    expect(integrity()).toBe('ok');
  }, 180_000);

  it('loses no acknowledged job when killed with kill -9 while the disk is full, and restarts once there is room', async () => {
    fill();
    expect((await pushUntilRefused()).status).toBe(507);
    expect(await stopServiceProcess(service.child, 'SIGKILL')).toBeNull();
    free();
    await start();
    expect(integrity()).toBe('ok');
    for (const id of acknowledged) expect((await call('GET', `/v2/jobs/${id}`)).status, id).toBe(200);
    await allEnd();
  }, 180_000);
});
