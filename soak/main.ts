import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { Command, InvalidArgumentError } from 'commander';
import { startLocalSystem } from './localSystem.js';
import { runSoak, type SoakOptions } from './soak.js';

/**
 * `npm run soak`: a fault-injecting soak of either mode (docs/performance.md, "Soak"). Locally
 * the soak runs itself in a private mount namespace, where the service's data directory gets a
 * small filesystem of its own to fill; the namespace, and the mount, end with the soak.
 */
const number = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
};

const program = new Command('soak')
  .description('drive Sluice with a mixed load while faults land, then check that nothing was lost or duplicated')
  .option('--mode <mode>', 'local (npm start) or aws (npm run aws:local)', 'local')
  .option('--minutes <n>', 'how long the load runs', number, 10)
  .option('--seed <n>', 'the random seed (printed, to run the same choices again)', number)
  .option('--clients <n>', 'concurrent clients per organization', number, 4)
  .option('--fault-gap <seconds>', 'mean time between faults', number, 20)
  .option('--drain <seconds>', 'how long ended work may take to settle after the load stops', number, 300)
  .option('--without <kinds>', 'fault kinds to leave out, comma-separated', '')
  .option('--dir <path>', 'where the soak keeps its data, logs and report (default: a new temporary folder)')
  .parse();

const flags = program.opts<{ mode: string; minutes: number; seed?: number; clients: number; faultGap: number; drain: number; without: string; dir?: string }>();
if (flags.mode !== 'local' && flags.mode !== 'aws') program.error(`error: --mode must be local or aws, not ${flags.mode}`);

if (flags.mode === 'local' && process.env.SLUICE_SOAK_NAMESPACE !== '1') {
  // A private mount namespace (unprivileged: in a user namespace), so the tmpfs ends with the soak.
  const unshare = process.getuid?.() === 0 ? ['-m', '--propagation', 'private'] : ['-Urm', '--propagation', 'private'];
  if (spawnSync('unshare', [...unshare, 'true']).status === 0) {
    const inside = spawn('unshare', [...unshare, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: { ...process.env, SLUICE_SOAK_NAMESPACE: '1' },
    });
    // A stop meant for the soak reaches the soak inside, which stops the service before it exits.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => inside.kill(signal));
    const [status] = (await once(inside, 'exit')) as [number | null];
    process.exit(status ?? 1);
  }
}

const options: SoakOptions = {
  mode: flags.mode as SoakOptions['mode'],
  minutes: flags.minutes,
  seed: flags.seed ?? Math.floor(Math.random() * 2 ** 31),
  clients: flags.clients,
  faultGapSeconds: flags.faultGap,
  drainSeconds: flags.drain,
  without: flags.without.split(',').filter(Boolean),
  workDir: flags.dir,
};
const inNamespace = process.env.SLUICE_SOAK_NAMESPACE === '1';
const result = await runSoak(options, async (workDir, random) => {
  if (options.mode === 'aws') return (await import('./awsSystem.js')).startAwsSystem({ workDir, random });
  return startLocalSystem({ workDir, random, mountData: inNamespace });
});
process.stdout.write(result.report);
process.exit(result.rows.every((row) => row.held) ? 0 : 1);
