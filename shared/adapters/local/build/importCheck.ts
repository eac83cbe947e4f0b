import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { VersionRecord } from '../../../domain/version.js';
import { PYTHON_SDK_DIR } from '../../../packaging/inspectFunctions.js';
import { inheritedEnvironment } from '../../../runtime/inheritedEnvironment.js';
import { runtimeCommand } from '../../../runtime/runtimeCommand.js';
import { runCommand } from '../../../system/runCommand.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { BuildFailure } from './buildFailure.js';
import { pythonInstallation } from './pythonInterpreters.js';

/** Imports of large libraries (torch) take seconds; an import that takes this long is stuck. */
const IMPORT_TIMEOUT_MS = 5 * 60_000;

export interface ImportCheckOptions {
  sandbox: Sandbox;
  /** Where the check's private scratch folder (its /tmp and home) goes. */
  scratchFolder: string;
}

/**
 * Imports the version's entry file with its environment's Python, in the sandbox a replica
 * runs in (without a GPU, and read-only), and fails the build with the import's error when it
 * does not import: a missing dependency shows in the build, not in the first job.
 */
export async function checkImports(
  options: ImportCheckOptions,
  version: VersionRecord,
  codeDir: string,
  environment: string,
  say: (line: string) => void,
): Promise<void> {
  const python = join(environment, 'bin', 'python');
  const runtime = runtimeCommand({ python, sdkDir: PYTHON_SDK_DIR, codeDir, version, env: {} });
  await mkdir(options.scratchFolder, { recursive: true });
  const scratch = await mkdtemp(join(options.scratchFolder, 'import-'));
  try {
    const installation = pythonInstallation(python);
    const confined = options.sandbox.wrap(python, ['-m', 'sluice._check_import'], {
      readOnly: [codeDir, environment, PYTHON_SDK_DIR, ...(installation === null ? [] : [installation])],
      writable: [],
      scratch,
      devices: [],
      cwd: codeDir,
    });
    const inherited = inheritedEnvironment(process.env);
    const env = {
      ...inherited,
      ...runtime.env,
      PATH: `${join(environment, 'bin')}:${inherited.PATH ?? '/usr/local/bin:/usr/bin:/bin'}`,
      HOME: confined.scratch,
      TMPDIR: confined.scratch,
      CUDA_VISIBLE_DEVICES: '',
    };
    let last = '';
    say(`Checking that ${version.entrypoint.file} imports in its environment`);
    const result = await runCommand(confined.command, confined.args, {
      cwd: confined.cwd,
      env,
      timeoutMs: IMPORT_TIMEOUT_MS,
      onLine: (line) => {
        say(line);
        if (line.trim()) last = line.trim();
      },
    });
    if (result.exitCode === 0) return;
    const why =
      result.spawnError ??
      (result.timedOut ? `it did not finish within ${IMPORT_TIMEOUT_MS / 60_000} minutes` : last || `exit status ${result.exitCode ?? result.signal}`);
    throw new BuildFailure(
      `The code does not import in its environment: ${why} (add what it needs to python_packages or system_packages; see the build logs).`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
