import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWireSchema, pushResultWireSchema, type WireJob } from '../../shared/domain/wire/job.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const GREET = `import os
import sluice

@sluice.function(name="replay-greet", environment_variables=[sluice.Env(name="GREETING", default="Hello"), sluice.Env(name="MARK", default=".")])
def greet(name: str) -> str:
    return os.environ["GREETING"] + ", " + name + os.environ["MARK"]
`;

const READ = `import sluice

@sluice.function(name="replay-read")
def read(document: sluice.File) -> str:
    with open(document.path) as f:
        return f.read()
`;

/** The same function in its versions: `text` in the first two, `number` in the third. */
const shaped = (tag: string, input = 'text: str') => `import sluice

@sluice.function(name="replay-shape")
def shape(${input}) -> str:
    return "${tag}:" + str(${input.split(':')[0]})
`;

/** The job's first output's data. */
const output = (job: WireJob) => (job.outputs?.[0] as { data: unknown } | undefined)?.data;

describe('replaying a job (POST /v2/jobs/{id}/replay)', () => {
  let service: TestService;
  const call = (method: string, path: string, body?: unknown, key = service.key) => api(service.url, key, method, path, body);
  const replay = (id: string, body?: unknown, key?: string) => call('POST', `/v2/jobs/${id}/replay`, body, key);
  const job = async (id: string) => jobWireSchema.parse((await call('GET', `/v2/jobs/${id}`)).body);
  const ended = async (id: string) => {
    await until(async () => ['finished', 'error', 'cancelled'].includes((await call('GET', `/v2/jobs/${id}`)).body.status), 30_000, 50);
    return job(id);
  };
  const deploy = async (source: string) => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }));
    await waitForBuild(service, `local/${deployed.body.function.name}`, deployed.body.version.id);
    return deployed.body.version.id as string;
  };
  const pushed = async (body: unknown) => {
    const answer = await call('POST', '/v2/push', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.id as string;
  };

  beforeAll(async () => {
    service = await startTestService({ SLUICE_AWAIT_TIMEOUT_S: '2' });
    await deploy(GREET);
    await deploy(READ);
  }, 120_000);
  afterAll(() => service.close());

  it('pushes the same inputs, environment and scheduling again on the same version, and links the two both ways', async () => {
    const originalId = await pushed({
      function: 'local/replay-greet',
      inputs: { name: 'Ada' },
      env: { GREETING: 'Hi' },
      priority: 3,
      start_timeout: 600,
      retries: 1,
    });
    const original = await ended(originalId);
    expect(output(original)).toBe('Hi, Ada.');

    const answer = await replay(originalId);
    expect(answer.status).toBe(200);
    const result = pushResultWireSchema.parse(answer.body);
    expect(result).toMatchObject({ status: 'queued', model_id: (await call('GET', '/v2/functions/local/replay-greet/versions/latest')).body.id });
    const again = await ended(result.id);
    expect(again).toMatchObject({ status: 'finished', inputs: { name: 'Ada' }, replay_of: originalId, priority: 3, start_timeout: 600, retries: 1 });
    expect(output(again)).toBe('Hi, Ada.');

    const second = pushResultWireSchema.parse((await replay(originalId, {})).body);
    expect((await job(originalId)).replays).toEqual([result.id, second.id]);
    // A list page leaves replays out; one job's view shows them.
    const listed = (await call('GET', '/v2/functions/local/replay-greet/jobs?limit=10')).body.data;
    expect(listed.find((each: { id: string }) => each.id === originalId)).not.toHaveProperty('replays');
  });

  it('answers 404, as a read does, to another organization, and links nothing', async () => {
    const originalId = await pushed({ function: 'local/replay-greet', inputs: { name: 'Lin' } });
    const rival = await service.createOrganization('replay-rival');
    const answer = await replay(originalId, undefined, rival);
    expect(answer).toEqual({ status: 404, body: { detail: 'Job not found.' } });
    expect(await replay('no-such-job')).toEqual({ status: 404, body: { detail: 'Job not found.' } });
    expect((await job(originalId)).replays).toBeUndefined();
  });

  it('reads an uploaded File input again, and refuses with 422 once the upload has been deleted', async () => {
    const text = 'uploaded once, read twice';
    const created = await call('POST', '/v2/uploads', { size: Buffer.byteLength(text) });
    expect((await fetch(created.body.upload_url, { method: 'PUT', body: text })).status).toBe(200);
    const uploadId = created.body.upload_id as string;
    const originalId = await pushed({ function: 'local/replay-read', inputs: { document: { upload_id: uploadId, name: 'words.txt' } } });
    expect(output(await ended(originalId))).toBe(text);

    const again = await ended(pushResultWireSchema.parse((await replay(originalId)).body).id);
    expect([again.status, output(again)]).toEqual(['finished', text]);

    // A day on, the upload is swept (at the next upload URL asked for): made older than that here.
    const folder = join(service.dataDir, 'uploads');
    for (const organization of await readdir(folder)) {
      for (const name of await readdir(join(folder, organization))) await utimes(join(folder, organization, name), new Date(0), new Date(0));
    }
    await call('POST', '/v2/uploads', { size: 1 });
    const refused = await replay(originalId);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toBe(
      `Input document was an uploaded file (upload ${uploadId}), and uploads are kept 1 day: it is gone. Upload the file again (POST /v2/uploads) and push the job with it.`,
    );
  });

  it('replays on the newest version with "latest" (or on a named one), and answers 422 as a push does when its inputs differ', async () => {
    const first = await deploy(shaped('v1'));
    const originalId = await pushed({ function: 'local/replay-shape', inputs: { text: 'x' } });
    await ended(originalId);
    const second = await deploy(shaped('v2'));

    const onLatest = pushResultWireSchema.parse((await replay(originalId, { version: 'latest' })).body);
    expect(onLatest.model_id).toBe(second);
    expect(output(await ended(onLatest.id))).toBe('v2:x');
    const onSame = pushResultWireSchema.parse((await replay(originalId)).body);
    expect([onSame.model_id, output(await ended(onSame.id))]).toEqual([first, 'v1:x']);
    const byId = pushResultWireSchema.parse((await replay(originalId, { version: second })).body);
    expect(byId.model_id).toBe(second);

    await deploy(shaped('v3', 'number: int'));
    const refused = await replay(originalId, { version: 'latest' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: ['body', 'inputs', 'text'] }), expect.objectContaining({ loc: ['body', 'inputs', 'number'] })]),
    );
    expect((await replay(originalId, { version: '' })).status).toBe(422);
    expect((await replay(originalId, { versoin: 'latest' })).status).toBe(422);
    expect((await job(originalId)).replays).toEqual([onLatest.id, onSame.id, byId.id]);
  });
});
