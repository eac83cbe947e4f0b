import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe, pythonInstallation } from '../shared/adapters/local/build/pythonInterpreters.js';
import { chooseSandbox } from '../shared/adapters/local/sandbox/chooseSandbox.js';
import { PYTHON_SDK_DIR } from '../shared/packaging/inspectFunctions.js';

export interface ModuleEvaluator {
  /** The command the inspector runs, with a folder and a module's path, to learn computed arguments. */
  command: string[];
  /** Said before the deploy when the code runs unconfined. */
  warning: string | null;
  close(): Promise<void>;
}

/**
 * Where `sluice deploy` runs a module's top-level code to read arguments it computes (as `sieve
 * deploy` imports the file): the sandbox builds run in, without the network, seeing the
 * function's folder read-only, the SDK and the interpreter, and a private scratch folder.
 * Where bubblewrap cannot confine it, it runs as the deployer's own code, and says so.
 */
export async function moduleEvaluator(python: string, directory: string): Promise<ModuleEvaluator> {
  const { sandbox } = await chooseSandbox('auto');
  const interpreter = await probe(python);
  const scratch = await mkdtemp(join(tmpdir(), 'sluice-evaluate-'));
  const installation = interpreter === null ? null : pythonInstallation(interpreter.executable);
  const confined = sandbox.wrap(interpreter?.executable ?? python, ['-m', 'sluice._evaluate'], {
    readOnly: [directory, PYTHON_SDK_DIR, ...(installation === null ? [] : [installation])],
    writable: [],
    scratch,
    devices: [],
    cwd: directory,
    network: false,
  });
  return {
    command: [confined.command, ...confined.args],
    warning:
      sandbox.kind === 'none'
        ? 'bubblewrap is not available: module code that computes decorator arguments runs unconfined, as your own code (as sieve deploy runs it).'
        : null,
    close: () => rm(scratch, { recursive: true, force: true }),
  };
}
