import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

describe('organizations, keys and who may see what', () => {
  let service: TestService;
  let otherKey: string;

  beforeAll(async () => {
    service = await startTestService();
    otherKey = await service.createOrganization('acme');
    for (const name of ['secret', 'shared']) {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction(name) }));
      await waitForBuild(service, `local/${name}`, deployed.body.version.id);
    }
    await api(service.url, service.key, 'POST', '/v2/functions/local/shared/edit', { visibility: 'public' });
  });
  afterAll(() => service.close());

  it('answers 401 with the interface’s detail for a missing or unknown key', async () => {
    const unauthorized = { status: 401, body: { detail: 'Unauthorized - valid API Key required.' } };
    expect(await api(service.url, undefined, 'GET', '/v2/functions/local/shared')).toEqual(unauthorized);
    expect(await api(service.url, 'sk_not-a-key', 'GET', '/v2/functions/local/shared')).toEqual(unauthorized);
  });

  it('hides a private function from other organizations as if it did not exist', async () => {
    const notFound = { status: 404, body: { detail: 'Function not found.' } };
    expect(await api(service.url, otherKey, 'GET', '/v2/functions/local/secret')).toEqual(notFound);
    expect(await api(service.url, otherKey, 'GET', '/v2/functions/local/secret/versions')).toEqual(notFound);
    expect(await api(service.url, otherKey, 'POST', '/v2/functions/local/secret/edit', { title: 'x' })).toEqual(notFound);
  });

  it('lets every organization read a public function and its versions', async () => {
    expect((await api(service.url, otherKey, 'GET', '/v2/functions/local/shared')).body.name).toBe('shared');
    expect((await api(service.url, otherKey, 'GET', '/v2/functions/local/shared/versions/latest')).status).toBe(200);
  });

  it('lets only the owner edit or deploy to a public function (403 for others)', async () => {
    const edit = await api(service.url, otherKey, 'POST', '/v2/functions/local/shared/edit', { title: 'mine now' });
    expect(edit.status).toBe(403);
    expect(edit.body.detail).toMatch(/owner/);
    const deploy = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('shared') }), otherKey, 'local');
    expect(deploy.status).toBe(403);
    expect((await api(service.url, service.key, 'GET', '/v2/functions/local/shared')).body.title).toBeNull();
  });

  it('creates a function under the deploying key’s own organization', async () => {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': pythonFunction('tool') }), otherKey, 'acme');
    expect(deployed.status).toBe(201);
    expect(deployed.body.function.owner_name).toBe('acme');
    expect((await api(service.url, otherKey, 'GET', '/v2/functions?truncate=true')).body).toEqual([{ name: 'tool', owner_name: 'acme' }]);
  });

  it('refuses a revoked key', async () => {
    const keys = service.running.app.services.keys;
    const created = await keys.createKey('shortlived');
    expect((await api(service.url, created.secret, 'GET', '/v2/organization')).body.name).toBe('shortlived');
    await keys.revokeKey(created.key.id);
    expect((await api(service.url, created.secret, 'GET', '/v2/organization')).status).toBe(401);
  });
});
