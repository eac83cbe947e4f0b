import { afterEach, describe, expect, it } from 'vitest';
import { chooseSandbox } from '../../shared/adapters/local/sandbox/chooseSandbox.js';
import { ConfigError } from '../../shared/config.js';

describe('choosing how function code is confined (SLUICE_SANDBOX)', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });
  const withoutBubblewrap = () => {
    process.env.PATH = '/nonexistent';
  };

  it('uses bubblewrap where it works, with no warning', async () => {
    const choice = await chooseSandbox('auto');
    expect(choice.sandbox.kind).toBe('bwrap');
    expect(choice.warning).toBeNull();
  });

  it('refuses to start with SLUICE_SANDBOX=bwrap where bubblewrap is missing, saying so', async () => {
    withoutBubblewrap();
    const refused = chooseSandbox('bwrap');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/SLUICE_SANDBOX=bwrap.*bwrap is not installed/);
  });

  it('starts unconfined with SLUICE_SANDBOX=auto where bubblewrap is missing, warning that functions can read the data directory', async () => {
    withoutBubblewrap();
    const choice = await chooseSandbox('auto');
    expect(choice.sandbox.kind).toBe('none');
    expect(choice.warning).toMatch(/bwrap is not installed.*UNCONFINED.*data directory.*apt-get install bubblewrap/);
  });

  it('warns with SLUICE_SANDBOX=off too', async () => {
    const choice = await chooseSandbox('off');
    expect(choice.sandbox.kind).toBe('none');
    expect(choice.warning).toMatch(/SLUICE_SANDBOX=off.*UNCONFINED/);
  });
});
