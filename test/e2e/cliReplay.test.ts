import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Raises for a text that starts with "bad": a job that ends in error on demand. */
const PICKY = `import sluice

@sluice.function(name="picky")
def picky(text: str) -> str:
    if text.startswith("bad"):
        raise ValueError(text)
    return text
`;

const ID = /^[0-9a-f-]{36}$/;

describe('sluice replay, and the scheduling options of push and run', () => {
  let service: TestService;
  let env: Record<string, string>;
  const get = async (path: string) => (await api(service.url, service.key, 'GET', path)).body;
  const push = async (text: string) =>
    (await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/picky', inputs: { text } })).body.id as string;
  const ended = (ids: string[]) =>
    until(async () => (await Promise.all(ids.map((id) => get(`/v2/jobs/${id}`)))).every((job) => job.completed_at !== null), 30_000, 50);

  beforeAll(async () => {
    service = await startTestService();
    env = { SLUICE_URL: service.url, SLUICE_API_KEY: service.key };
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': PICKY }));
    await waitForBuild(service, 'local/picky', deployed.body.version.id);
  }, 120_000);
  afterAll(() => service.close());

  it('push and run take --priority, --start-timeout and --retries, and the job keeps them', async () => {
    const pushed = await runCli(['push', 'picky', '-i', 'text=a', '--priority', '-3', '--start-timeout', '2m', '--retries', '2'], env);
    expect(pushed.stderr).toBe('');
    const id = pushed.stdout.trim();
    expect(await get(`/v2/jobs/${id}`)).toMatchObject({ priority: -3, start_timeout: 120, retries: 2 });
    const run = await runCli(['run', 'picky', '-i', 'text=b', '--start-timeout', '30', '--json'], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', start_timeout: 30, priority: 0, retries: 0 });
    const refused = await runCli(['push', 'picky', '-i', 'text=c', '--priority', '11'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/priority/);
    expect((await runCli(['push', 'picky', '-i', 'text=c', '--retries', 'two'], env)).stderr).toContain('"two" is not a whole number.');
  });

  it('replay ID prints the new job id, which replays it', async () => {
    const original = await push('again');
    await ended([original]);
    const replayed = await runCli(['replay', original], env);
    expect(replayed.stderr).toBe('');
    const id = replayed.stdout.trim();
    expect(id).toMatch(ID);
    expect(await get(`/v2/jobs/${id}`)).toMatchObject({ replay_of: original, inputs: { text: 'again' } });
    const onLatest = await runCli(['replay', original, '--to-version', 'latest', '--json'], env);
    expect(JSON.parse(onLatest.stdout)).toMatchObject({ status: 'queued', model_id: (await get('/v2/functions/local/picky/versions/latest')).id });
    expect((await runCli(['replay'], env)).stderr).toBe('error: Give a job id, or --function to replay its jobs (not both).\n');
  });

  it('replay --function --status --since replays each matching job oldest first, printing each, and takes --yes above 10', async () => {
    const failed = [];
    for (let n = 0; n < 11; n++) failed.push(await push(`bad ${n}`));
    const fine = await push('good');
    await ended([...failed, fine]);

    const asked = await runCli(['replay', '--function', 'picky', '--status', 'error', '--since', '1h'], env);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toBe('error: 11 jobs of local/picky match; replaying more than 10 at once takes --yes.\n');

    const some = await runCli(['replay', '--function', 'local/picky', '--status', 'error', '--since', '1h', '--limit', '3'], env);
    expect(some.stderr).toBe('');
    // The newest three, replayed oldest first.
    const lines = some.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' -> ')[0])).toEqual(failed.slice(-3));
    for (const line of lines) expect(line).toMatch(/^\S+ -> [0-9a-f-]{36}$/);

    const all = await runCli(['replay', '--function', 'picky', '--status', 'error', '--since', '1h', '--yes'], env);
    // The three replays above are jobs of the function too: those that have failed by now match as well.
    const originals = all.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' -> ')[0]);
    expect(originals).toEqual(expect.arrayContaining(failed));
    expect(originals).not.toContain(fine);

    // Jobs pushed earlier than the window are left alone.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const none = await runCli(['replay', '--function', 'picky', '--status', 'finished', '--since', '1s'], env);
    expect([none.code, none.stderr]).toEqual([0, 'No jobs match.\n']);
  });
});
