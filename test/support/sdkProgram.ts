import { execFile } from 'node:child_process';
import { PYTHON_SDK_DIR } from '../../shared/packaging/inspectFunctions.js';

/**
 * Runs a Python program as a Sieve user's own program runs: the SDK importable, and only
 * SIEVE_API_URL and SIEVE_API_KEY pointing it at the service.
 */
export function runSdkProgram(
  script: string,
  service: { url: string; key: string },
  args: string[] = [],
  timeoutMs = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    PYTHONPATH: PYTHON_SDK_DIR,
    PYTHONDONTWRITEBYTECODE: '1',
    SIEVE_API_URL: service.url,
    SIEVE_API_KEY: service.key,
  };
  return new Promise((resolve) => {
    execFile('python3', ['-c', script, ...args], { env, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr }),
    );
  });
}
