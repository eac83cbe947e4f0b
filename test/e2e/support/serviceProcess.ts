import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { SLUICE_BIN, TEST_CONFIG_HOME } from './cli.js';

export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** The bootstrap key the banner printed ("" when it printed none: a revoked key). */
  key: string;
  output: () => string;
}

/** `sluice start` as a separate process, on a free port; resolves once its banner is complete. */
export function startServiceProcess(dataDir: string, env: Record<string, string> = {}, args = ['--examples']): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [SLUICE_BIN, 'start', ...args], {
    env: { ...process.env, PORT: '0', SLUICE_DATA_DIR: dataDir, SLUICE_LOG_LEVEL: 'warn', XDG_CONFIG_HOME: TEST_CONFIG_HOME, ...env },
  });
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /running at (http:\/\/\S+)/.exec(stdout)?.[1];
      const key = /API key for organization "local"(?: \(new\))?: (\S+)/.exec(stdout)?.[1] ?? '';
      if (url && stdout.includes('Stop with Ctrl+C.')) resolve({ child, url, key, output: () => stdout });
    });
    child.on('exit', (code) => reject(new Error(`sluice start exited with ${code}: ${stdout}`)));
  });
}

/** Sends a signal and resolves with the exit code (null when killed by the signal). */
export function stopServiceProcess(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
