import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionWireSchema, truncatedFunctionWireSchema } from '../../shared/domain/wire/function.js';
import { versionWireSchema } from '../../shared/domain/wire/version.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

describe('functions and versions over HTTP', () => {
  let service: TestService;
  let firstVersion: string;
  let secondVersion: string;
  const get = (path: string) => api(service.url, service.key, 'GET', path);

  beforeAll(async () => {
    service = await startTestService();
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('repeat', ', title="Repeat", tags=["text"]') });
    firstVersion = (await deployDirectory(service, dir)).body.version.id;
    await waitForBuild(service, 'local/repeat', firstVersion);
    secondVersion = (await deployDirectory(service, dir)).body.version.id;
    await waitForBuild(service, 'local/repeat', secondVersion);
  });
  afterAll(() => service.close());

  it('deploys a function and answers 201 with the function and its queued version', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('fresh') });
    const { status, body } = await deployDirectory(service, dir);
    expect(status).toBe(201);
    expect(body.function).toMatchObject({ name: 'fresh', owner_name: 'local', visibility: 'private', function_type: 'function' });
    expect(body.version.build_status).toBe('queued');
    expect(versionWireSchema.parse(body.version).queued_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
  });

  it('gets a function exactly as the interface prints it, latest_version carrying python_version', async () => {
    const { status, body } = await get('/v2/functions/local/repeat');
    expect(status).toBe(200);
    const fn = functionWireSchema.parse(body);
    expect(Object.keys(body).sort()).toEqual(Object.keys(functionWireSchema.shape).sort());
    expect(fn).toMatchObject({ name: 'repeat', owner_name: 'local', title: 'Repeat', tags: ['text'], webhooks: [], restart_on_error: true });
    expect(fn.latest_version.id).toBe(secondVersion);
    expect(fn.latest_version.python_version).toMatch(/^3\.\d+$/);
    expect(fn.latest_version.inputs.map((input) => [input.name, input.type, input.is_optional, input.data])).toEqual([
      ['text', 'str', false, null],
      ['times', 'int', true, 1],
    ]);
  });

  it('stamps queued_at, built_at and ready_at in order on a ready version', async () => {
    const version = versionWireSchema.parse((await get(`/v2/functions/local/repeat/versions/${firstVersion}`)).body);
    expect(version.build_status).toBe('ready');
    expect(version.queued_at! <= version.built_at! && version.built_at! <= version.ready_at!).toBe(true);
  });

  it('truncates a function to name and owner_name with ?truncate=true', async () => {
    const { body } = await get('/v2/functions/local/repeat?truncate=true');
    expect(truncatedFunctionWireSchema.parse(body)).toEqual({ name: 'repeat', owner_name: 'local' });
  });

  it('lists versions newest first, without python_version, honouring limit and offset', async () => {
    const all = (await get('/v2/functions/local/repeat/versions')).body;
    expect(all.slice(-2).map((v: any) => v.id)).toEqual([secondVersion, firstVersion]);
    expect(all.every((v: any) => versionWireSchema.safeParse(v).success && !('python_version' in v))).toBe(true);
    expect((await get('/v2/functions/local/repeat/versions?limit=1&offset=1')).body.map((v: any) => v.id)).toEqual([firstVersion]);
  });

  it('finds a version by id, by unique id prefix and by "latest"', async () => {
    expect((await get(`/v2/functions/local/repeat/versions/${firstVersion}`)).body.id).toBe(firstVersion);
    expect((await get(`/v2/functions/local/repeat/versions/${firstVersion.slice(0, 8)}`)).body.id).toBe(firstVersion);
    expect((await get('/v2/functions/local/repeat/versions/latest')).body.id).toBe(secondVersion);
  });

  it('answers 400 for a prefix that matches more than one version, and 404 for one that matches none', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('many') });
    const ids: string[] = [];
    // 17 random ids share a first hex digit somewhere (pigeonhole).
    for (let i = 0; i < 17; i++) ids.push((await deployDirectory(service, dir)).body.version.id);
    const shared = ids.map((id) => id[0]).find((first, index, all) => all.indexOf(first) !== index) as string;
    const ambiguous = await get(`/v2/functions/local/many/versions/${shared}`);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.detail).toMatch(/ambiguous/);
    const missing = await get('/v2/functions/local/many/versions/zzzz');
    expect(missing).toEqual({ status: 404, body: { detail: 'Function version not found.' } });
    await service.running.app.builder.idle();
  });

  it('makes "latest" the newest ready version when a newer one failed, and the newest when none is ready', async () => {
    const builder = service.running.app.builder;
    const broken = await writeFunctionDir({ 'main.py': pythonFunction('repeat', ', python_version="3.99"') });
    const failed = (await deployDirectory(service, broken)).body.version.id;
    await builder.idle();
    expect((await get(`/v2/functions/local/repeat/versions/${failed}`)).body.build_status).toBe('error');
    expect((await get('/v2/functions/local/repeat/versions/latest')).body.id).toBe(secondVersion);
    const only = await writeFunctionDir({ 'main.py': pythonFunction('pending', ', python_version="3.99"') });
    const onlyVersion = (await deployDirectory(service, only)).body.version.id;
    await builder.idle();
    expect((await get('/v2/functions/local/pending/versions/latest')).body.id).toBe(onlyVersion);
  });

  it('edits a function: listing fields, visibility and webhooks; absent fields stay as they were', async () => {
    const edit = await api(service.url, service.key, 'POST', '/v2/functions/local/repeat/edit', {
      description: 'Repeats text',
      visibility: 'public',
      webhooks: { hooks: [{ type: 'job.complete', url: 'http://127.0.0.1:9/hook' }] },
      examples: ['job-1'],
    });
    expect(edit.status).toBe(200);
    expect(functionWireSchema.parse(edit.body)).toMatchObject({
      description: 'Repeats text',
      visibility: 'public',
      title: 'Repeat',
      examples: ['job-1'],
      webhooks: [{ type: 'job.complete', url: 'http://127.0.0.1:9/hook' }],
    });
    expect((await get('/v2/functions/local/repeat')).body.description).toBe('Repeats text');
  });

  it('rejects an edit with a bad field with 422 and the field path', async () => {
    const { status, body } = await api(service.url, service.key, 'POST', '/v2/functions/local/repeat/edit', {
      visibility: 'everyone',
      webhooks: { hooks: [{ type: 'job.complete', url: 'ftp://example.com' }] },
    });
    expect(status).toBe(422);
    const locs = body.detail.map((issue: any) => issue.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.visibility', 'body.webhooks.hooks.0.url']));
  });

  it('lists the organization’s functions by name as an array of Function, with limit and offset', async () => {
    const first = (await get('/v2/functions?limit=2')).body;
    expect(first.map((f: any) => f.name)).toEqual(['fresh', 'many']);
    expect(first[0].latest_version.id).toEqual(expect.any(String));
    const rest = (await get('/v2/functions?offset=2&truncate=true')).body;
    expect(rest).toEqual([
      { name: 'pending', owner_name: 'local' },
      { name: 'repeat', owner_name: 'local' },
    ]);
  });

  it('refuses a limit above 1000, or an offset negative or past 2^53 (not exact as a number), with 422', async () => {
    for (const path of [
      '/v2/functions?limit=1001',
      '/v2/functions/local/repeat/versions?offset=-1',
      '/v2/jobs?offset=9007199254740992',
      '/v2/jobs?offset=1e300',
    ]) {
      const { status, body } = await get(path);
      expect(status).toBe(422);
      expect(body.detail[0].loc[0]).toBe('query');
    }
  });

  it('answers 404 "Function not found." for an unknown function', async () => {
    expect(await get('/v2/functions/local/nothing')).toEqual({ status: 404, body: { detail: 'Function not found.' } });
  });
});
