import { posix } from 'node:path';

/** What a confined command may see besides the system's read-only software (see systemMounts.ts). */
export interface SandboxSpec {
  /** Folders and files it reads, mounted read-only at their own paths (its code, its venv, the interpreter). */
  readOnly: string[];
  /** Folders it writes, mounted at their own paths (a venv being built). */
  writable: string[];
  /** Its private scratch folder on this machine: its /tmp and its home inside the sandbox. */
  scratch: string;
  /** Device files it needs (GPUs). */
  devices: string[];
  /** Its working directory, as it sees it; default: its scratch folder. */
  cwd?: string;
  /** Whether it reaches the network (default: it does, as functions download things). */
  network?: boolean;
}

/** A command ready to spawn: the program, its arguments, and where to start it. */
export interface ConfinedCommand {
  command: string;
  args: string[];
  /** The working directory to spawn with (outside the sandbox). */
  cwd: string;
  /** The scratch folder as the command sees it: its HOME and TMPDIR. */
  scratch: string;
}

/**
 * Confines function code: a replica, its build, and whatever they start. `wrap` turns a
 * command and the mounts it may see into the command to spawn; `hostPath` says where a path
 * the confined command names lies on this machine (null when the sandbox does not show it).
 */
export interface Sandbox {
  readonly kind: 'bwrap' | 'none';
  wrap(command: string, args: string[], spec: SandboxSpec): ConfinedCommand;
  hostPath(path: string, spec: SandboxSpec): string | null;
}

/** No confinement: the command sees what the service sees (SLUICE_SANDBOX=off, or no bubblewrap). */
export const NO_SANDBOX: Sandbox = {
  kind: 'none',
  wrap: (command, args, spec) => ({ command, args, cwd: spec.cwd ?? spec.scratch, scratch: spec.scratch }),
  hostPath: (path) => posix.resolve(path),
};
