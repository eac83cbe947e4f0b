import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const check = (env: NodeJS.ProcessEnv) => spawnSync(process.execPath, ['scripts/check-test-prerequisites.js'], { env, encoding: 'utf8' });

describe('npm test on a machine missing what its specs drive', () => {
  it('stops at once with one message naming every missing program and how to install it', () => {
    const { status, stderr } = check({ PATH: '/nonexistent', SLUICE_CHROMIUM: '/nonexistent/chromium' });
    expect(status).toBe(1);
    expect(stderr).toContain('npm test needs programs this machine lacks:');
    for (const line of [
      'python3: apt-get install',
      'pytest (python/tests): python3 -m pip install pytest',
      'bubblewrap (bwrap): apt-get install bubblewrap',
      'ffmpeg: apt-get install ffmpeg',
      'chromium (/nonexistent/chromium): apt-get install chromium',
      "moto_server: pip install 'moto[server]>=5'",
    ]) {
      expect(stderr).toContain(line);
    }
  });

  it('says nothing and goes on where everything is installed', () => {
    expect(check(process.env)).toMatchObject({ status: 0, stderr: '' });
  });
});
