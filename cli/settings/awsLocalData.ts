import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How `npm run aws:local` tells the CLI where its store is. Its DynamoDB (dynalite) lives in
 * memory, on a port chosen at start, so a command that opens the store directly (`sluice keys`)
 * cannot find it from the data directory alone: while the emulation runs, this file in its data
 * directory names it; the emulation removes it when it stops.
 */
export const RUNNING_EMULATION_FILE = 'aws-local.json';

export interface RunningEmulation {
  dynamoDbEndpoint: string;
  tablePrefix: string;
  region: string;
  /** The emulation's process: a file left by one that was killed names a process that is gone. */
  pid: number;
}

export type AwsLocalData = { state: 'running'; emulation: RunningEmulation } | { state: 'stopped' };

/** Written by the emulation once its tables and first key exist; returns what removes it. */
export function announceRunningEmulation(dataDir: string, emulation: RunningEmulation): () => void {
  const path = join(dataDir, RUNNING_EMULATION_FILE);
  writeFileSync(path, `${JSON.stringify(emulation, null, 2)}\n`, { mode: 0o600 });
  return () => rmSync(path, { force: true });
}

/**
 * Whether `dataDir` is aws:local's, and whether it runs now; null for any other directory. Only
 * aws:local synthesizes the CDK app into its data directory (cdk.out), so that marks one even
 * while it is stopped.
 */
export function awsLocalDataIn(dataDir: string): AwsLocalData | null {
  const running = readRunning(join(dataDir, RUNNING_EMULATION_FILE));
  if (running && isAlive(running.pid)) return { state: 'running', emulation: running };
  return running || existsSync(join(dataDir, 'cdk.out')) ? { state: 'stopped' } : null;
}

function readRunning(path: string): RunningEmulation | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<RunningEmulation>;
    const valid =
      typeof parsed.dynamoDbEndpoint === 'string' &&
      typeof parsed.tablePrefix === 'string' &&
      typeof parsed.region === 'string' &&
      typeof parsed.pid === 'number';
    return valid ? (parsed as RunningEmulation) : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
