import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectFunctions } from '../../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../../shared/packaging/packDirectory.js';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { api, pythonFunction, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

/** Lambda's request payload limit, which an AWS deploy must not depend on. */
const LAMBDA_LIMIT_BYTES = 6 * 1024 * 1024;

/** Reads its own data file, so a run proves the whole bundle arrived. */
const BIG_FUNCTION = `import os
import sluice

@sluice.function(name="big")
def run() -> int:
    return os.path.getsize(os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.bin"))
`;

describe('bundle uploads', () => {
  let service: TestService;
  let otherKey: string;
  const call = (method: string, path: string, body?: unknown, key = service.key) => api(service.url, key, method, path, body);
  const put = (url: string, body: Buffer, headers: Record<string, string> = {}) => fetch(url, { method: 'PUT', body, headers });
  const metadataOf = async (directory: string) => {
    const inspected = await inspectFunctions(directory, 'python3');
    if (!inspected.ok) throw new Error(inspected.errors.join('; '));
    return inspected.functions[0];
  };

  beforeAll(async () => {
    // The request limit of Lambda, and an upload limit of 16 MB.
    service = await startTestService({ SLUICE_MAX_BODY_MB: '6', SLUICE_MAX_UPLOAD_MB: '16' });
    otherKey = await service.createOrganization('acme');
  });
  afterAll(() => service.close());

  it('deploys a bundle larger than 6 MB with `sluice deploy`, past a 6 MB request limit, and runs it', async () => {
    // Random bytes: gzip cannot make them smaller than the limit.
    const weights = randomBytes(LAMBDA_LIMIT_BYTES + 1024 * 1024);
    const dir = await writeFunctionDir({ 'main.py': BIG_FUNCTION });
    await writeFile(join(dir, 'weights.bin'), weights);
    expect((await packDirectory(dir)).length).toBeGreaterThan(LAMBDA_LIMIT_BYTES);

    const result = await runCli(['deploy', dir], { SLUICE_URL: service.url, SLUICE_API_KEY: service.key });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('✓ local/big is ready');

    const { body: pushed } = await call('POST', '/v2/push', { function: 'local/big', inputs: {} });
    const { body: job } = await call('GET', `/v2/jobs/${pushed.id}/await`);
    expect(job.status).toBe('finished');
    expect(job.outputs[0].data).toBe(weights.length);
  });

  it('refuses the same bundle inline: the request limit is what the upload avoids', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('inline-big'), 'weights.bin': randomBytes(LAMBDA_LIMIT_BYTES).toString('base64') });
    const bundle = (await packDirectory(dir)).toString('base64');
    const { status, body } = await call('POST', '/v2/functions/local/inline-big/versions', { metadata: await metadataOf(dir), bundle });
    expect(status).toBe(413);
    expect(body.detail).toContain('Request body too large');
  });

  it('creates an upload: its id, a URL and when the URL expires (15 minutes on)', async () => {
    const before = Date.now();
    const { status, body } = await call('POST', '/v2/uploads', { size: 10 });
    expect(status).toBe(201);
    expect(body.upload_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.upload_url).toMatch(new RegExp(`^${service.url}/uploads/`));
    const expiresAt = Date.parse(`${body.expires_at}Z`);
    expect(expiresAt - before).toBeGreaterThanOrEqual(15 * 60 * 1000 - 1000);
    expect(expiresAt - before).toBeLessThanOrEqual(15 * 60 * 1000 + 5000);
  });

  it('serves every function of a directory from one upload', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('twice') });
    const bundle = await packDirectory(dir);
    const { body: upload } = await call('POST', '/v2/uploads', { size: bundle.length });
    expect((await put(upload.upload_url, bundle)).status).toBe(200);
    const metadata = await metadataOf(dir);
    for (let deploy = 0; deploy < 2; deploy++) {
      const { status, body } = await call('POST', '/v2/functions/local/twice/versions', { metadata, upload_id: upload.upload_id });
      expect(status).toBe(201);
      expect((await waitForBuild(service, 'local/twice', body.version.id)).build_status).toBe('ready');
    }
  });

  it('refuses an upload id of another organization with 404 and a detail, creating nothing', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('stolen') });
    const bundle = await packDirectory(dir);
    const { body: upload } = await call('POST', '/v2/uploads', { size: bundle.length });
    expect((await put(upload.upload_url, bundle)).status).toBe(200);

    const { status, body } = await call(
      'POST',
      '/v2/functions/acme/stolen/versions',
      { metadata: await metadataOf(dir), upload_id: upload.upload_id },
      otherKey,
    );
    expect(status).toBe(404);
    expect(body.detail).toContain(`Upload ${upload.upload_id} not found`);
    expect((await call('GET', '/v2/functions/acme/stolen', undefined, otherKey)).status).toBe(404);
    // The organization that made it can deploy from it.
    expect((await call('POST', '/v2/functions/local/stolen/versions', { metadata: await metadataOf(dir), upload_id: upload.upload_id })).status).toBe(201);
  });

  it('answers 404 for an upload whose PUT never came, and 422 for a malformed upload id', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('never') });
    const metadata = await metadataOf(dir);
    const { body: upload } = await call('POST', '/v2/uploads', { size: 100 });
    expect((await call('POST', '/v2/functions/local/never/versions', { metadata, upload_id: upload.upload_id })).status).toBe(404);
    const malformed = await call('POST', '/v2/functions/local/never/versions', { metadata, upload_id: '../../bundles/x' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(['body', 'upload_id']);
  });

  it('asks for exactly one of bundle and upload_id: 422 at both when given both or neither', async () => {
    const dir = await writeFunctionDir({ 'main.py': pythonFunction('one-of') });
    const metadata = await metadataOf(dir);
    const bundle = (await packDirectory(dir)).toString('base64');
    for (const body of [{ metadata }, { metadata, bundle, upload_id: 'a0b1c2' }]) {
      const answer = await call('POST', '/v2/functions/local/one-of/versions', body);
      expect(answer.status).toBe(422);
      expect(answer.body.detail.map((issue: any) => issue.loc.join('.'))).toEqual(['body.bundle', 'body.upload_id']);
    }
  });

  it('refuses an upload above the limit (SLUICE_MAX_UPLOAD_MB) when it is created: 413', async () => {
    const { status, body } = await call('POST', '/v2/uploads', { size: 17 * 1024 * 1024 });
    expect(status).toBe(413);
    expect(body.detail).toBe('The bundle is 17 MB; the limit is 16 MB.');
  });

  describe('the upload URL', () => {
    it('takes a PUT without an API key, and only of the size it was made for', async () => {
      const { body: upload } = await call('POST', '/v2/uploads', { size: 10 });
      const longer = await put(upload.upload_url, Buffer.alloc(11));
      expect(longer.status).toBe(400);
      expect(((await longer.json()) as any).detail).toBe('This upload takes exactly 10 bytes (the size given to POST /v2/uploads); the body has 11.');
      expect((await put(upload.upload_url, Buffer.alloc(10))).status).toBe(200);
    });

    it('refuses a streamed body that runs past the size: 413, and nothing is kept', async () => {
      const { body: upload } = await call('POST', '/v2/uploads', { size: 10 });
      const chunks = new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(8));
          controller.enqueue(new Uint8Array(8));
          controller.close();
        },
      });
      const answer = await fetch(upload.upload_url, { method: 'PUT', body: chunks, duplex: 'half' } as RequestInit);
      expect(answer.status).toBe(413);
      const dir = await writeFunctionDir({ 'main.py': pythonFunction('streamed') });
      expect((await call('POST', '/v2/functions/local/streamed/versions', { metadata: await metadataOf(dir), upload_id: upload.upload_id })).status).toBe(404);
    });

    it('refuses a URL whose size or signature was changed: 403', async () => {
      const { body: upload } = await call('POST', '/v2/uploads', { size: 10 });
      const resized = new URL(upload.upload_url);
      resized.searchParams.set('size', '20');
      expect((await put(resized.href, Buffer.alloc(20))).status).toBe(403);
      const resigned = new URL(upload.upload_url);
      resigned.searchParams.set('signature', '0'.repeat(64));
      const answer = await put(resigned.href, Buffer.alloc(10));
      expect(answer.status).toBe(403);
      expect(((await answer.json()) as any).detail).toMatch(/not valid/);
    });

    it('refuses a URL whose organization was changed: 403', async () => {
      const { body: upload } = await call('POST', '/v2/uploads', { size: 10 });
      const { body: organization } = await call('GET', '/v2/organization', undefined, otherKey);
      const moved = new URL(upload.upload_url);
      moved.pathname = moved.pathname.replace(/^\/uploads\/[^/]+\//, `/uploads/${organization.id}/`);
      expect((await put(moved.href, Buffer.alloc(10))).status).toBe(403);
    });
  });
});
