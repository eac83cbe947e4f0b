import { posix } from 'node:path';
import type { Sandbox, SandboxSpec } from './sandbox.js';

/** Where the scratch folder appears inside the sandbox. */
const SCRATCH = '/tmp';

/**
 * Bubblewrap: new user, PID, IPC, UTS and cgroup namespaces, no capabilities in them, no new
 * privileges (bwrap sets no_new_privs: a setuid file runs as its caller), the network shared unless the spec
 * says otherwise (functions download things), a read-only view of the system's software, and only the spec's folders
 * besides. The PID namespace ends with bwrap, and bwrap with its parent (--die-with-parent), so
 * killing bwrap or the service ends every process the function started.
 */
export function bubblewrapSandbox(systemMounts: string[]): Sandbox {
  return {
    kind: 'bwrap',
    wrap: (command, args, spec) => ({ command: 'bwrap', args: bwrapArguments(command, args, spec, systemMounts), cwd: '/', scratch: SCRATCH }),
    hostPath: (path, spec) => {
      const resolved = posix.resolve(spec.cwd ?? SCRATCH, path);
      const mounts: [inside: string, host: string][] = [[SCRATCH, spec.scratch], ...[...spec.readOnly, ...spec.writable].map((p): [string, string] => [p, p])];
      const within = mounts.filter(([inside]) => resolved === inside || resolved.startsWith(`${inside}/`));
      const [inside, host] = within.sort((a, b) => b[0].length - a[0].length)[0] ?? [];
      return inside === undefined || host === undefined ? null : posix.join(host, posix.relative(inside, resolved));
    },
  };
}

/** The bwrap command line that runs `command args` confined to the system's software and the spec's mounts. */
export function bwrapArguments(command: string, args: string[], spec: SandboxSpec, systemMounts: string[]): string[] {
  // Parents before children: a folder mounted inside another must come after it.
  const binds = [...spec.readOnly.map((path) => ['--ro-bind', path]), ...spec.writable.map((path) => ['--bind', path])]
    .sort((a, b) => depth(a[1] as string) - depth(b[1] as string))
    .flatMap(([flag, path]) => [flag as string, path as string, path as string]);
  return [
    '--die-with-parent',
    '--unshare-all',
    // Run by root, bwrap leaves the function every capability in its namespaces: enough to make
    // a read-only mount writable again and write through it to the host's files.
    '--cap-drop',
    'ALL',
    ...(spec.network === false ? [] : ['--share-net']),
    '--new-session',
    ...systemMounts,
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    spec.scratch,
    SCRATCH,
    ...binds,
    ...spec.devices.flatMap((device) => ['--dev-bind', device, device]),
    '--chdir',
    spec.cwd ?? SCRATCH,
    '--',
    command,
    ...args,
  ];
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
