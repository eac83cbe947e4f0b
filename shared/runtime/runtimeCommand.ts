import type { VersionRecord } from '../domain/version.js';
import type { ReplicaCommand } from './replica.js';

export interface RuntimeCommandOptions {
  /** The interpreter of the version's environment. */
  python: string;
  /** The folder holding the `sluice` package (the SDK and its runtime). */
  sdkDir: string;
  codeDir: string;
  version: VersionRecord;
  /** The process's own variables; the runtime's are added. */
  env: Record<string, string>;
}

/** `python -m sluice._runtime` in a version's code, with the variables the runtime reads. */
export function runtimeCommand(options: RuntimeCommandOptions): ReplicaCommand {
  const { entrypoint } = options.version;
  return {
    command: options.python,
    args: ['-m', 'sluice._runtime'],
    cwd: options.codeDir,
    env: {
      ...options.env,
      PYTHONPATH: [options.sdkDir, options.codeDir].join(':'),
      PYTHONUNBUFFERED: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      SLUICE_ENTRY_FILE: entrypoint.file,
      SLUICE_ENTRY_SYMBOL: entrypoint.symbol,
      SLUICE_ENTRY_KIND: entrypoint.kind,
    },
  };
}
