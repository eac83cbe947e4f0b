import { fileURLToPath } from 'node:url';
import { runCommand } from '../system/runCommand.js';

/** The Python SDK's folder: on PYTHONPATH for the inspector and for function processes. */
export const PYTHON_SDK_DIR = fileURLToPath(new URL('../../python', import.meta.url));

export type InspectResult = ({ ok: true; functions: unknown[] } | { ok: false; errors: string[] }) & {
  warnings: string[];
  /** The .py files whose top-level code the evaluator ran. */
  evaluated: string[];
};

export interface InspectOptions {
  /** The .py files to read, relative to the directory; by default every one under it. */
  only?: string[];
  /**
   * The command that runs `sluice._evaluate` (in a sandbox) for decorator arguments the code
   * computes; without one, such an argument is an error naming it.
   */
  evaluator?: string[];
}

/**
 * Reads the functions a directory declares, with the SDK's inspector (`python -m sluice._inspect`),
 * which parses the source: the code's own dependencies need not be installed. Arguments the
 * module computes are learnt through `options.evaluator`. The metadata is checked again by
 * the service when it is deployed.
 */
export async function inspectFunctions(directory: string, python: string, options: InspectOptions = {}): Promise<InspectResult> {
  let stdout = '';
  const stderr: string[] = [];
  const args = ['-m', 'sluice._inspect', directory];
  if (options.only) args.push('--only', JSON.stringify(options.only));
  if (options.evaluator) args.push('--evaluator', JSON.stringify(options.evaluator));
  const result = await runCommand(python, args, {
    env: { ...process.env, PYTHONPATH: PYTHON_SDK_DIR, PYTHONDONTWRITEBYTECODE: '1' },
    timeoutMs: 120_000,
    onLine: (line, stream) => (stream === 'stdout' ? (stdout += `${line}\n`) : stderr.push(line)),
  });
  if (result.spawnError !== null)
    return { ok: false, errors: [`Could not run the Python interpreter ${python} (SLUICE_PYTHON): ${result.spawnError}`], warnings: [], evaluated: [] };
  try {
    const parsed = JSON.parse(stdout) as { functions?: unknown[]; errors?: string[]; warnings?: string[]; evaluated?: string[] };
    const notes = { warnings: parsed.warnings ?? [], evaluated: parsed.evaluated ?? [] };
    if (parsed.errors) return { ok: false, errors: parsed.errors, ...notes };
    if (result.exitCode === 0 && parsed.functions) return { ok: true, functions: parsed.functions, ...notes };
  } catch {
    // Not JSON: the inspector itself failed; its stderr says why.
  }
  return { ok: false, errors: [`The inspector failed (exit status ${result.exitCode}): ${stderr.join('\n') || stdout}`], warnings: [], evaluated: [] };
}
