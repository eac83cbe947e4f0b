#!/usr/bin/env node
// Run by `npm test` first (the pretest script): the suite drives real programs, and a machine
// missing one would otherwise find out from failing specs minutes later. One message names
// every missing program and the command that installs it (.ci/run installs them).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const runs = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const onPath = (command) => runs('sh', ['-c', `command -v ${command}`]);
const accessible = (path, mode) => {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
};
const executable = (path) => accessible(path, constants.X_OK);

const chromium = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium';
const libfaketime = ['x86_64', 'aarch64'].some((arch) => accessible(`/usr/lib/${arch}-linux-gnu/faketime/libfaketime.so.1`, constants.R_OK));
const needs = [
  { what: 'python3', present: onPath('python3'), install: 'apt-get install python3 python3-venv' },
  {
    what: 'pytest (python/tests)',
    present: runs('python3', ['-m', 'pytest', '--version']),
    install: 'python3 -m pip install pytest (or apt-get install python3-pytest)',
  },
  { what: 'bubblewrap (bwrap)', present: onPath('bwrap'), install: 'apt-get install bubblewrap' },
  { what: 'ffmpeg', present: onPath('ffmpeg'), install: 'apt-get install ffmpeg' },
  { what: `chromium (${chromium})`, present: executable(chromium), install: 'apt-get install chromium (or set SLUICE_CHROMIUM to a chromium binary)' },
  { what: 'libfaketime (the soak: clock jumps)', present: libfaketime, install: 'apt-get install faketime' },
  { what: 'moto_server', present: onPath('moto_server'), install: "pip install 'moto[server]>=5' (with pip's scripts folder on PATH)" },
];
const missing = needs.filter((need) => !need.present);
if (missing.length > 0) {
  process.stderr.write(
    `npm test needs programs this machine lacks:\n${missing.map((need) => `  - ${need.what}: ${need.install}`).join('\n')}\n.ci/run installs them all on Debian.\n`,
  );
  process.exit(1);
}
