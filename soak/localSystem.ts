import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, openSync, closeSync, writeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../emulator/freePort.js';
import { pipConfiguration } from '../shared/adapters/local/build/pipConfiguration.js';
import { ClockJump } from './clockJump.js';
import { sleep } from './http.js';
import { childrenOf, killGroup } from './processTree.js';
import type { Random } from './random.js';
import { OPERATOR_TOKEN, ORGANIZATION_NAMES, type SoakSystem } from './soakSystem.js';

const SLUICE = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
/** The data directory's filesystem when the soak mounts one: room for hours of jobs, small enough to fill in a moment. */
const DATA_FILESYSTEM_MB = 512;

export interface LocalSystemOptions {
  workDir: string;
  random: Random;
  /** Whether the data directory sits on a filesystem of its own that the soak may fill (run.ts mounts it in a private mount namespace). */
  mountData: boolean;
}

/**
 * `sluice start` as its own process, supervised as systemd would: killed with -9 when a fault
 * says so, and started again over the same data directory and port. The data directory sits on
 * a small tmpfs, so the disk can fill; the wall clock can jump (clockJump.ts).
 */
export async function startLocalSystem(options: LocalSystemOptions): Promise<SoakSystem> {
  const { workDir, random } = options;
  const dataDir = join(workDir, 'data');
  mkdirSync(dataDir, { recursive: true });
  if (options.mountData) mountTmpfs(dataDir);
  const clock = new ClockJump(join(workDir, 'clock-offset'));
  const port = await freePort();
  const log = createWriteStream(join(workDir, 'service.log'), { flags: 'a' });
  const environment = {
    ...process.env,
    ...pipConfiguration(process.env).env,
    PORT: String(port),
    SLUICE_DATA_DIR: dataDir,
    // Python environments outlive a soak (as a host's do): the default packages are installed once, not per soak.
    SLUICE_ENVIRONMENTS_DIR: process.env.SLUICE_ENVIRONMENTS_DIR ?? join(tmpdir(), 'sluice-soak-environments'),
    PIP_RETRIES: process.env.PIP_RETRIES ?? '1',
    XDG_CONFIG_HOME: join(workDir, 'config'),
    SLUICE_LOG_LEVEL: 'warn',
    // Receivers' bad spells last seconds: retries a fifth as far apart as by default reach them within the soak.
    SLUICE_WEBHOOK_RETRY_BASE_MS: '200',
    SLUICE_WEBHOOK_TIMEOUT_S: '2',
    SLUICE_OPERATOR_TOKEN: OPERATOR_TOKEN,
  };
  const keys = ORGANIZATION_NAMES.map((name) => ({ name, key: createKey(name, dataDir, environment) }));

  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(process.execPath, [SLUICE, 'start'], { env: { ...environment, ...clock.environment() }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.pipe(log, { end: false });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Stop with Ctrl+C.')) resolve();
      });
      child!.once('exit', (code, signal) => reject(new Error(`sluice start exited (${code ?? signal}): ${out}`)));
    });
  };
  const killService = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  const url = `http://127.0.0.1:${port}`;

  const unavailableFaults: Record<string, string> = {};
  if (!options.mountData) unavailableFaults['disk-full'] = 'the data directory has no filesystem of its own (no mount namespace here)';
  const clockWhy = clock.unavailable();
  if (clockWhy) unavailableFaults['clock-jump'] = clockWhy;

  const faults: SoakSystem['faults'] = {
    'service-kill': async () => {
      await killService();
      const endedAt = Date.now();
      await sleep(random.between(0, 2_000));
      await startWithRetries(start);
      return { detail: 'kill -9 of the service, then started again', endedAt };
    },
    'replica-kill': async () => {
      const replicas = child?.pid ? childrenOf(child.pid) : [];
      if (replicas.length === 0) return { detail: 'no replica running' };
      const victim = random.pick(replicas);
      killGroup(victim);
      return { detail: `kill -9 of replica process group ${victim} (of ${replicas.length})` };
    },
    'disk-full': async () => {
      const ballast = join(dataDir, '.soak-ballast');
      const filled = fill(ballast);
      await sleep(random.between(3_000, 12_000));
      rmSync(ballast, { force: true });
      return { detail: `filled the data filesystem (${(filled / 1e6).toFixed(0)} MB of ballast), then freed it` };
    },
    'clock-jump': async () => {
      const total = clock.jump(random.between(30, 300));
      return { detail: `wall clock now ${total} s ahead` };
    },
  };
  for (const kind of Object.keys(unavailableFaults)) delete faults[kind];

  return {
    mode: 'local',
    url,
    awaitBase: url,
    organizations: keys,
    faults,
    unavailableFaults,
    async close() {
      await killService();
      log.end();
      if (options.mountData) spawnSync('umount', ['-l', dataDir]);
    },
  };
}

/** `sluice keys create` on the data directory, before the first start, as an operator provisions organizations. */
function createKey(organization: string, dataDir: string, environment: NodeJS.ProcessEnv): string {
  const created = spawnSync(process.execPath, [SLUICE, 'keys', 'create', '--org', organization, '--data-dir', dataDir], { env: environment, encoding: 'utf8' });
  const secret = created.stdout.trim().split('\n').at(-1) ?? '';
  if (created.status !== 0 || !secret) throw new Error(`sluice keys create --org ${organization} failed: ${created.stderr}`);
  return secret;
}

/** A restart can meet the port still held, or a full disk: keep trying, as a supervisor does. */
async function startWithRetries(start: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 30) throw error;
      await sleep(1_000);
    }
  }
}

function mountTmpfs(directory: string): void {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${DATA_FILESYSTEM_MB}m`, 'tmpfs', directory], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`could not mount a tmpfs on ${directory}: ${mounted.stderr}`);
}

/** Writes until the filesystem refuses (ENOSPC), in big pieces then small ones; the bytes written. */
function fill(path: string): number {
  const descriptor = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 12, 1 << 9]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          written += writeSync(descriptor, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(descriptor);
  }
  return written;
}
