import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';

describe('the settings of local builds', () => {
  it('default to: no extra interpreters, system packages checked only, environments in the data directory', () => {
    const config = loadConfig({ SLUICE_DATA_DIR: '/srv/sluice' });
    expect(config).toMatchObject({ pythonInterpreters: [], installSystemPackages: 'off', environmentsDir: join('/srv/sluice', 'envs') });
  });

  it('read SLUICE_PYTHON_INTERPRETERS (a comma-separated list), SLUICE_INSTALL_SYSTEM_PACKAGES and SLUICE_ENVIRONMENTS_DIR', () => {
    const config = loadConfig({
      SLUICE_PYTHON_INTERPRETERS: '/opt/python3.8/bin/python3.8, /usr/local/bin/python3.12,',
      SLUICE_INSTALL_SYSTEM_PACKAGES: 'apt',
      SLUICE_ENVIRONMENTS_DIR: '/var/cache/sluice-envs',
    });
    expect(config).toMatchObject({
      pythonInterpreters: ['/opt/python3.8/bin/python3.8', '/usr/local/bin/python3.12'],
      installSystemPackages: 'apt',
      environmentsDir: '/var/cache/sluice-envs',
    });
  });

  it('refuse an installer they do not know, naming the variable', () => {
    expect(() => loadConfig({ SLUICE_INSTALL_SYSTEM_PACKAGES: 'yum' })).toThrow(/SLUICE_INSTALL_SYSTEM_PACKAGES/);
  });
});
