import { existsSync, lstatSync, readlinkSync } from 'node:fs';

/** Installed software every sandbox reads: the system's programs, libraries and settings. */
const SOFTWARE = ['/usr', '/opt', '/etc', '/run/systemd/resolve'];

/** Folders that are links into /usr on a merged-/usr system, and real folders elsewhere. */
const MAYBE_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The machine's secrets under /etc: a file is replaced by an empty one, a folder by an empty tmpfs. */
const HIDDEN = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssh',
  '/etc/ssl/private',
  '/etc/security/opasswd',
];

/**
 * The bubblewrap arguments that show this machine's installed software read-only, as it is on
 * this machine (read once, at start). Home folders, /root, /srv, /var, /tmp and /mnt stay out.
 */
export function systemMountArguments(): string[] {
  const args: string[] = [];
  for (const path of SOFTWARE) if (existsSync(path)) args.push('--ro-bind', path, path);
  for (const path of MAYBE_LINKS) {
    const stat = lstatOrNull(path);
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else if (stat) args.push('--ro-bind', path, path);
  }
  for (const path of HIDDEN) {
    const stat = lstatOrNull(path);
    if (stat?.isDirectory()) args.push('--tmpfs', path);
    else if (stat) args.push('--ro-bind', '/dev/null', path);
  }
  return args;
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
