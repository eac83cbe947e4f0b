import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../domain/configError.js';
import { runCommand } from '../../../system/runCommand.js';
import { bubblewrapSandbox } from './bubblewrap.js';
import type { Sandbox } from './sandbox.js';
import { NO_SANDBOX } from './sandbox.js';
import { systemMountArguments } from './systemMounts.js';

export interface SandboxChoice {
  sandbox: Sandbox;
  /** Set when function code runs unconfined: the service says so at start, loudly. */
  warning: string | null;
}

const UNCONFINED =
  'function code (replicas and builds) runs UNCONFINED: it can read the data directory (API keys, every function, every job) and whatever this service can';

/**
 * SLUICE_SANDBOX: `bwrap` requires bubblewrap (refuses to start without it), `auto` uses it
 * where it works and warns where it does not, `off` does without (and warns).
 */
export async function chooseSandbox(setting: 'auto' | 'bwrap' | 'off'): Promise<SandboxChoice> {
  if (setting === 'off') return { sandbox: NO_SANDBOX, warning: `SLUICE_SANDBOX=off: ${UNCONFINED}.` };
  const systemMounts = systemMountArguments();
  const problem = await probeBubblewrap(systemMounts);
  if (problem === null) return { sandbox: bubblewrapSandbox(systemMounts), warning: null };
  if (setting === 'bwrap') throw new ConfigError(`SLUICE_SANDBOX=bwrap, but bubblewrap cannot confine function code on this machine: ${problem}`);
  return {
    sandbox: NO_SANDBOX,
    warning: `No sandbox (${problem}): ${UNCONFINED}. Install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or set SLUICE_SANDBOX=bwrap to refuse to start without it; see docs/security.md.`,
  };
}

/** Null when bwrap runs a command the way replicas are run; else why not. */
async function probeBubblewrap(systemMounts: string[]): Promise<string | null> {
  const scratch = await mkdtemp(join(tmpdir(), 'sluice-sandbox-probe-'));
  try {
    const said: string[] = [];
    const { command, args } = bubblewrapSandbox(systemMounts).wrap('true', [], { readOnly: [], writable: [], scratch, devices: [] });
    const result = await runCommand(command, args, { timeoutMs: 10_000, onLine: (line) => said.push(line) });
    if (result.exitCode === 0) return null;
    if (result.spawnError !== null) return /ENOENT/.test(result.spawnError) ? 'bwrap is not installed' : `bwrap does not start: ${result.spawnError}`;
    return `bwrap fails: ${said.join(' ').trim() || (result.timedOut ? 'timed out' : `exit status ${result.exitCode ?? result.signal}`)}`;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
