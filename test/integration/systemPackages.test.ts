import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureSystemPackages } from '../../shared/adapters/local/build/systemPackages.js';

/**
 * dpkg-query, apt-get and sudo stand-ins first on PATH: dpkg knows a package once a file of its
 * name is in the state folder; apt-get writes its calls to a log and installs anything but
 * `not-in-apt`; `sudo -n` works once the state folder holds `sudo-ok`.
 */
const root = mkdtempSync(join(tmpdir(), 'sluice-system-packages-'));
const state = join(root, 'state');
const bin = join(root, 'bin');
const script = (name: string, body: string) => {
  writeFileSync(join(bin, name), `#!/bin/sh\nSTATE=${state}\n${body}`);
  chmodSync(join(bin, name), 0o755);
};
mkdirSync(bin);
script('dpkg-query', 'name=$3\n[ -e "$STATE/$name" ] || exit 1\nprintf "install ok installed"\n');
script(
  'apt-get',
  '[ "$1" = --version ] && exit 0\necho "${VIA_SUDO:+sudo -n }apt-get $*" >> "$STATE/apt.log"\necho "apt-get: $*"\n[ "$1" = install ] || exit 0\nshift 3\nfor p; do [ "$p" = not-in-apt ] && exit 100; done\nfor p; do touch "$STATE/$p"; done\n',
);
script('sudo', '[ -e "$STATE/sudo-ok" ] || { echo "sudo: a password is required" >&2; exit 1; }\n[ "$1" = -n ] && shift\nVIA_SUDO=1 exec "$@"\n');
const originalPath = process.env.PATH;
process.env.PATH = `${bin}:${originalPath}`;

describe('system_packages in the local build', () => {
  let log: string[] = [];
  const say = (line: string) => log.push(line);
  const aptCalls = () => (existsSync(join(state, 'apt.log')) ? readFileSync(join(state, 'apt.log'), 'utf8').trim().split('\n') : []);
  beforeEach(() => {
    rmSync(state, { recursive: true, force: true });
    mkdirSync(state);
    writeFileSync(join(state, 'ffmpeg'), '');
    log = [];
  });
  afterAll(() => {
    process.env.PATH = originalPath;
    rmSync(root, { recursive: true, force: true });
  });

  it('by default checks them and fails naming the missing ones, the apt-get command and the setting that installs them', async () => {
    await ensureSystemPackages(['ffmpeg'], { install: 'off', say });
    await expect(ensureSystemPackages(['ffmpeg', 'libsm6', 'libgl1'], { install: 'off', say })).rejects.toThrow(
      'System packages not installed: libsm6, libgl1. Install with: sudo apt-get install libsm6 libgl1 (or set SLUICE_INSTALL_SYSTEM_PACKAGES=apt to let the service install them).',
    );
    expect(aptCalls()).toEqual([]);
  });

  it('with SLUICE_INSTALL_SYSTEM_PACKAGES=apt, as root, installs the missing ones with apt-get, saying so in the build log', async () => {
    await ensureSystemPackages(['ffmpeg', 'libsm6', 'libgl1'], { install: 'apt', say, asRoot: true });
    expect(aptCalls()).toEqual(['apt-get update', 'apt-get install -y --no-install-recommends libsm6 libgl1']);
    expect(log).toContain('Installing system packages libsm6 libgl1 with apt-get (SLUICE_INSTALL_SYSTEM_PACKAGES=apt)');
    expect(log).toContain('apt-get: install -y --no-install-recommends libsm6 libgl1');
  });

  it('installs nothing when nothing is missing', async () => {
    await ensureSystemPackages(['ffmpeg'], { install: 'apt', say, asRoot: true });
    expect(aptCalls()).toEqual([]);
  });

  it('not as root, goes through sudo -n', async () => {
    writeFileSync(join(state, 'sudo-ok'), '');
    await ensureSystemPackages(['libsm6'], { install: 'apt', say, asRoot: false });
    expect(aptCalls()).toEqual(['sudo -n apt-get update', 'sudo -n apt-get install -y --no-install-recommends libsm6']);
    expect(log).toContain('Installing system package libsm6 with sudo -n apt-get (SLUICE_INSTALL_SYSTEM_PACKAGES=apt)');
  });

  it('not as root and without password-less sudo, fails saying so, installing nothing', async () => {
    await expect(ensureSystemPackages(['libsm6'], { install: 'apt', say, asRoot: false })).rejects.toThrow(
      /^System package not installed: libsm6\. SLUICE_INSTALL_SYSTEM_PACKAGES=apt installs them as root, but the service is not root and `sudo -n apt-get` does not work for it/,
    );
    expect(aptCalls()).toEqual([]);
  });

  it('fails naming what apt-get could not install', async () => {
    await expect(ensureSystemPackages(['libsm6', 'not-in-apt'], { install: 'apt', say, asRoot: true })).rejects.toThrow(
      'System packages not installed: libsm6, not-in-apt; apt-get install failed (exit status 100): see the build logs.',
    );
  });
});
