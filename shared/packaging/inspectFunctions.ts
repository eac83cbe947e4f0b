import { fileURLToPath } from 'node:url';
import { runCommand } from '../adapters/local/process/runCommand.js';

/** The Python SDK's folder: on PYTHONPATH for the inspector and for function processes. */
export const PYTHON_SDK_DIR = fileURLToPath(new URL('../../python', import.meta.url));

export type InspectResult = { ok: true; functions: unknown[] } | { ok: false; errors: string[] };

/**
 * Reads the functions a directory declares, with the SDK's inspector (`python -m sluice._inspect`),
 * which parses the source and never imports it: the code's own dependencies need not be installed.
 * The metadata is checked again by the service when it is deployed.
 */
export async function inspectFunctions(directory: string, python: string): Promise<InspectResult> {
  let stdout = '';
  const stderr: string[] = [];
  const result = await runCommand(python, ['-m', 'sluice._inspect', directory], {
    env: { ...process.env, PYTHONPATH: PYTHON_SDK_DIR, PYTHONDONTWRITEBYTECODE: '1' },
    timeoutMs: 60_000,
    onLine: (line, stream) => (stream === 'stdout' ? (stdout += `${line}\n`) : stderr.push(line)),
  });
  if (result.spawnError !== null) return { ok: false, errors: [`Could not run the Python interpreter ${python} (SLUICE_PYTHON): ${result.spawnError}`] };
  try {
    const parsed = JSON.parse(stdout) as { functions?: unknown[]; errors?: string[] };
    if (parsed.errors) return { ok: false, errors: parsed.errors };
    if (result.exitCode === 0 && parsed.functions) return { ok: true, functions: parsed.functions };
  } catch {
    // Not JSON: the inspector itself failed; its stderr says why.
  }
  return { ok: false, errors: [`The inspector failed (exit status ${result.exitCode}): ${stderr.join('\n') || stdout}`] };
}
