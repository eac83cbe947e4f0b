import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './support/cli.js';
import { runCliIn } from './support/cli.js';
import type { ServiceProcess } from './support/serviceProcess.js';
import { startServiceProcess, stopServiceProcess } from './support/serviceProcess.js';

/**
 * The CLI as a user meets it: `sluice start` in one folder (with the example functions), then
 * every other command from another folder, with nothing but the user's config to go on.
 */
describe('the sluice CLI', () => {
  let home: string;
  let elsewhere: string;
  let service: ServiceProcess;
  let dataDir: string;
  const sluice = (args: string[], extra: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> =>
    runCliIn(args, { cwd: elsewhere, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...extra.env }, input: extra.input });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sluice-home-'));
    elsewhere = await mkdtemp(join(tmpdir(), 'sluice-elsewhere-'));
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-data-'));
    service = await startServiceProcess(dataDir, { HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
  }, 120_000);
  afterAll(async () => {
    await stopServiceProcess(service.child, 'SIGTERM');
    for (const dir of [home, elsewhere, dataDir]) await rm(dir, { recursive: true, force: true });
  });

  it('works from any folder after `sluice start`, which saves the URL and key in the user config (mode 0600)', async () => {
    const configPath = join(home, '.config', 'sluice', 'config.json');
    expect(service.output()).toContain(`saved in ${configPath}`);
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toMatchObject({ url: service.url, apiKey: service.key });
    const whoami = await sluice(['whoami', '--json']);
    expect(whoami.stderr).toBe('');
    expect(JSON.parse(whoami.stdout)).toMatchObject({ url: service.url, organization: 'local', key_from: configPath });
  });

  it('runs a job and prints each output as it comes, with its status and logs on stderr', async () => {
    const result = await sluice(['run', 'stream-words', '--input', 'text=the quick brown fox']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('the\nquick\nbrown\nfox\n');
    expect(result.stderr).toMatch(/^job [0-9a-f-]{36}$/m);
    expect(result.stderr).toMatch(/^status finished$/m);
  });

  it("reads --input values as the function's input types say, and --inputs-json from a file", async () => {
    expect((await sluice(['run', 'local/hello', '-i', 'name=Ada', '-i', 'excited=true', '--quiet'])).stdout).toBe('Hello, Ada!\n');
    const json = await sluice(['run', 'hello', '--inputs-json', '@-', '--json'], { input: '{"name": "Grace"}' });
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'finished', outputs: [expect.objectContaining({ data: 'Hello, Grace.' })] });
  });

  it('refuses an input the function does not have in one line naming the ones it has', async () => {
    const result = await sluice(['run', 'hello', '--input', 'nmae=Ada']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: The function has no input "nmae"; its inputs: name, excited.\n');
  });

  it('pushes a job, then shows it, lists it, prints its logs, and refuses to cancel it once it has ended', async () => {
    const pushed = await sluice(['push', 'hello', '-i', 'name=Lin']);
    const jobId = pushed.stdout.trim();
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    await sluice(['logs', jobId, '--follow']);
    const job = await sluice(['job', jobId]);
    expect(job.stdout).toMatch(/^status: +finished$/m);
    expect(job.stdout).toContain('  Hello, Lin.');
    expect(JSON.parse((await sluice(['job', jobId, '--json'])).stdout)).toMatchObject({ id: jobId, status: 'finished' });
    const listed = await sluice(['jobs', 'hello', '--status', 'finished', '--json']);
    expect(JSON.parse(listed.stdout).data.map((each: { id: string }) => each.id)).toContain(jobId);
    const table = await sluice(['jobs', '--limit', '50']);
    expect(table.stdout.split('\n')[0]).toBe('ID\tFUNCTION\tSTATUS\tCREATED\tDURATION');
    expect(table.stdout).toMatch(new RegExp(`^${jobId}\tlocal/hello\tfinished\t\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\t`, 'm'));
    const cancel = await sluice(['cancel', jobId]);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/^error: .*\(400\): .+\n$/);
  });

  it('refuses an unknown status filter, listing the valid ones', async () => {
    const result = await sluice(['jobs', '--status', 'done']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Allowed choices are queued, processing, error, finished, cancelled.');
  });

  it('lists functions and versions, as tables or JSON', async () => {
    const functions = JSON.parse((await sluice(['functions', '--json'])).stdout) as { name: string }[];
    expect(functions.map((fn) => fn.name).sort()).toEqual(['hello', 'stream-words']);
    const versions = await sluice(['versions', 'hello']);
    expect(versions.stdout).toMatch(/^VERSION\tBUILD\tQUEUED\tREADY\tCOMPUTE\tREPLICAS\n[0-9a-f-]{36}\tready\t/);
  });

  it("prints a function's build and setup log, and usage by machine type with costs free of float noise", async () => {
    expect((await sluice(['logs', 'hello'])).stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} {2}Building version /m);
    const usage = await sluice(['usage']);
    expect(usage.stdout).toMatch(/^MACHINE TYPE\tCOMPUTE\tCOST\ncpu\t[\d.]+s\t\$\d+\.\d{2,6}\ntotal\t[\d.]+s\t\$\d+\.\d{2,6}\n$/);
    expect(JSON.parse((await sluice(['usage', 'hello', '--since', '1h', '--json'])).stdout).cpu.compute_seconds).toBeGreaterThan(0);
  });

  it('logs in with a key read from stdin after checking it, refuses a wrong one, and logs out', async () => {
    const other = await mkdtemp(join(tmpdir(), 'sluice-home-'));
    const env = { HOME: other, XDG_CONFIG_HOME: join(other, '.config') };
    const wrong = await sluice(['login', '--url', service.url, '--key', 'sk_wrong_key_0000000000'], { env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: GET \/v2\/organization failed \(401\)/);
    expect(existsSync(join(other, '.config', 'sluice', 'config.json'))).toBe(false);
    const login = await sluice(['login', '--url', service.url], { env, input: `${service.key}\n` });
    expect(login.stdout).toContain(`Logged in to ${service.url} as organization "local"`);
    expect((await sluice(['functions'], { env })).code).toBe(0);
    await sluice(['logout'], { env });
    const after = await sluice(['functions'], { env });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain(`error: No API key for ${service.url}: run \`sluice login`);
    await rm(other, { recursive: true, force: true });
  });

  it('lets SLUICE_URL and SLUICE_API_KEY override the saved login', async () => {
    const result = await sluice(['whoami'], { env: { SLUICE_URL: 'http://127.0.0.1:9', SLUICE_API_KEY: 'sk_from_the_environment' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: Cannot reach the service at http:\/\/127\.0\.0\.1:9 /);
  });

  it('opens the store `sluice start` saved for the keys commands, and refuses a folder with no store rather than creating one', async () => {
    expect((await sluice(['keys', 'list'])).stdout).toMatch(/^ID\tORGANIZATION\tKEY\tCREATED\tSTATUS\n.+\tlocal\t/);
    const refused = await sluice(['keys', 'list', '--data-dir', join(elsewhere, 'nothing-here')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: No Sluice data in .*nothing-here: /);
    expect(existsSync(join(elsewhere, 'nothing-here'))).toBe(false);
  });

  it('prints its version and a completion script for bash and zsh', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect((await sluice(['--version'])).stdout).toBe(`${version}\n`);
    const bash = await sluice(['completion', 'bash']);
    expect(bash.stdout).toContain('complete -F _sluice sluice');
    expect(bash.stdout).toMatch(/opts=".*\brun\b.*\bjobs\b.*\blogs\b/);
    expect((await sluice(['completion', 'zsh'])).stdout).toContain('bashcompinit');
  });
});
