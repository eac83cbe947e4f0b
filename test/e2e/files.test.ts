import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';
import { startWebhookReceiver } from './support/webhookReceiver.js';
import { runSdkProgram } from '../support/sdkProgram.js';

const READ = `import sluice

@sluice.function(name="read-file")
def read_file(document: sluice.File) -> str:
    with open(document.path) as f:
        return f.read()
`;

const WRITE = `import os
import tempfile
import sluice

@sluice.function(name="write-file")
def write_file(name: str, text: str) -> sluice.File:
    path = os.path.join(tempfile.mkdtemp(), name)
    with open(path, "w") as f:
        f.write(text)
    return sluice.File(path)
`;

const WRITE_NESTED = `import os
import tempfile
import sieve

def _write(name, text):
    path = os.path.join(tempfile.mkdtemp(), name)
    with open(path, "w") as f:
        f.write(text)
    return sieve.File(path)

@sieve.function(name="write-nested")
def write_nested(prefix: str) -> dict:
    return {"video": _write("clip.mp4", prefix + " video"), "frames": [_write("a.png", prefix + " a"), (_write("b.png", prefix + " b"), 2)], "elsewhere": sieve.File(url="https://example.com/x.txt")}
`;

const READ_NESTED = `import sieve

@sieve.function(name="read-nested")
def read_nested(bundle: dict) -> str:
    files = [bundle["video"], *bundle["frames"]]
    assert all(isinstance(f, sieve.File) for f in files), bundle
    return "|".join(open(f.path).read() for f in files)
`;

/** A file server on loopback: /doc.txt is served, /redirect?to=URL redirects, /hang never answers, anything else is 404. */
async function startFileServer(): Promise<{ server: Server; url: string; requests: string[]; hangsClosed: () => number }> {
  const requests: string[] = [];
  let hangsClosed = 0;
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/hang') return void request.socket.on('close', () => (hangsClosed += 1));
    if (url.pathname === '/doc.txt') return response.end('words from the file server');
    if (url.pathname === '/redirect') return response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    response.writeHead(404).end('no such file');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, hangsClosed: () => hangsClosed };
}

async function deployBoth(service: TestService, key = service.key, owner = 'local'): Promise<void> {
  for (const source of [READ, WRITE, WRITE_NESTED, READ_NESTED]) {
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }), key, owner);
    await waitForBuild(service, `${owner}/${deployed.body.function.name}`, deployed.body.version.id, key);
  }
}

const runWith = (service: TestService, key: string) => async (fn: string, inputs: Record<string, unknown>) => {
  const pushed = await api(service.url, key, 'POST', '/v2/push', { function: fn, inputs });
  if (pushed.status !== 200) return pushed;
  return api(service.url, key, 'GET', `/v2/jobs/${pushed.body.id}/await`);
};

describe('file inputs: a job cannot make the service read what it should not', () => {
  let service: TestService;
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let run: ReturnType<typeof runWith>;

  beforeAll(async () => {
    files = await startFileServer();
    service = await startTestService(); // SLUICE_INPUT_ALLOW unset: public addresses only
    run = runWith(service, service.key);
    await deployBoth(service);
  }, 60_000);
  afterAll(async () => {
    files.server.close();
    await service.close();
  });

  it('refuses at push a File input that is a path or a file:// URL, the data directory’s included', async () => {
    for (const document of [
      { path: '/etc/passwd' },
      '/etc/passwd',
      'file:///etc/passwd',
      { url: 'file:///etc/passwd' },
      { path: join(service.dataDir, 'api-key') },
      'api-key',
      { url: 'ftp://example.com/x' },
    ]) {
      const { status, body } = await run('local/read-file', { document });
      expect([JSON.stringify(document), status]).toEqual([JSON.stringify(document), 422]);
      expect(body.detail[0]).toMatchObject({ loc: ['body', 'inputs', 'document'], msg: expect.stringContaining('not a path or file:// URL') });
    }
  });

  it('ends a job in error for an input URL on loopback, the service’s own port included, or on the metadata address, revealing no port or status', async () => {
    const port = new URL(service.url).port;
    for (const url of [
      `http://127.0.0.1:${port}/v2/organization`,
      `http://localhost:${port}/uploads/x`,
      `${files.url}/doc.txt`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]:9/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ]) {
      const { body: job } = await run('local/read-file', { document: { url } });
      expect([url, job.status]).toEqual([url, 'error']);
      expect(job.error).toBe('Input document could not be fetched: its host is not a public address.');
    }
    expect(files.requests).toEqual([]);
  });

  it('decodes a data: URL input without any network', async () => {
    const { body: job } = await run('local/read-file', { document: `data:text/plain;base64,${Buffer.from('inline ✓').toString('base64')}` });
    expect(job.status).toBe('finished');
    expect(job.outputs[0].data).toBe('inline ✓');
  });

  it('shows a File output’s URL signed: a plain GET without a key downloads it, under its Unicode name (RFC 5987) and with its Content-Type', async () => {
    const name = 'résumé ✓ 東京 "quoted".txt';
    const { body: job } = await run('local/write-file', { name, text: 'unicode ✓' });
    expect(job.status).toBe('finished');
    expect(job.outputs[0]).toMatchObject({ type: 'sieve.File', data: { url: expect.stringContaining('signature='), name } });
    const download = await fetch(job.outputs[0].data.url, { redirect: 'manual' });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const disposition = download.headers.get('content-disposition') ?? '';
    expect(decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1] ?? '')).toBe(name);
    expect(disposition).toContain('filename="r_sum_ _ __ _quoted_.txt"');
    expect(await download.text()).toBe('unicode ✓');
    // Each read signs anew; the key-checked route stays, and redirects to a signed URL (as to S3 on AWS).
    const route = `${service.url}/v2/jobs/${job.id}/files/0`;
    expect((await fetch(route, { redirect: 'manual' })).status).toBe(401);
    const redirected = await fetch(route, { headers: { 'x-api-key': service.key } });
    expect([redirected.redirected, await redirected.text()]).toEqual([true, 'unicode ✓']);
  });

  it('gives webhook receivers the same signed URL: job.new_output’s file downloads without a key', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const pushed = await api(service.url, service.key, 'POST', '/v2/push', {
        function: 'local/write-file',
        inputs: { name: 'hook.json', text: '{}' },
        webhooks: [{ type: 'job.new_output', url: receiver.url('/out') }],
      });
      const [hook] = await receiver.waitFor('/out', 1);
      const output = JSON.parse(hook?.body.body.output);
      expect(output).toMatchObject({ type: 'sieve.File', data: { name: 'hook.json' } });
      const download = await fetch(output.data.url);
      expect([download.status, download.headers.get('content-type'), await download.text()]).toEqual([200, 'application/json', '{}']);
      expect(hook?.body.body.job_id).toBe(pushed.body.id);
    } finally {
      await receiver.close();
    }
  });

  it('stores Files nested in a dict, a list and a tuple, each shown marked, signed and typed, and takes them back as another job’s input', async () => {
    const { body: written } = await run('local/write-nested', { prefix: 'p' });
    expect(written.status).toBe('finished');
    const data = written.outputs[0].data;
    expect(data.video).toMatchObject({ _type: 'sieve.File', name: 'clip.mp4', url: expect.stringContaining('signature=') });
    expect(data.frames[1][1]).toBe(2);
    expect(data.elsewhere).toEqual({ _type: 'sieve.File', url: 'https://example.com/x.txt', name: null });
    const downloads = await Promise.all([data.video, data.frames[0], data.frames[1][0]].map((file: { url: string }) => fetch(file.url)));
    expect(await Promise.all(downloads.map(async (answer) => [answer.status, answer.headers.get('content-type'), await answer.text()]))).toEqual([
      [200, 'video/mp4', 'p video'],
      [200, 'image/png', 'p a'],
      [200, 'image/png', 'p b'],
    ]);
    // The key-checked route names a nested file by output index and part.
    expect((await fetch(`${service.url}/v2/jobs/${written.id}/files/0.1`, { headers: { 'x-api-key': service.key } })).status).toBe(200);

    const bundle = {
      video: { _type: 'sieve.File', url: data.video.url },
      frames: [
        { _type: 'sieve.File', url: data.frames[0].url },
        { _type: 'sieve.File', url: 'data:text/plain,inline' },
      ],
    };
    const { body: read } = await run('local/read-nested', { bundle });
    expect([read.status, read.error]).toEqual(['finished', '']);
    expect(read.outputs[0].data).toBe('p video|p a|inline');
  });

  it('refuses at push a nested File whose URL is a path, and ends in error one that cannot be fetched', async () => {
    const refused = await run('local/read-nested', { bundle: { video: { _type: 'sieve.File', url: '/etc/passwd' }, frames: [] } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'inputs', 'bundle'], msg: expect.stringContaining('not a path or file:// URL') });
    const many = await run('local/read-nested', {
      bundle: { video: { _type: 'sieve.File', url: 'data:,x' }, frames: Array.from({ length: 256 }, () => ({ _type: 'sieve.File', url: 'data:,x' })) },
    });
    expect([many.status, many.body.detail?.[0]?.msg]).toEqual([422, 'At most 256 files may be nested in one input']);
    const { body: failed } = await run('local/read-nested', { bundle: { video: { _type: 'sieve.File', url: 'http://127.0.0.1:9/x' }, frames: [] } });
    expect([failed.status, failed.error]).toEqual(['error', 'Input bundle could not be fetched: its host is not a public address.']);
  });

  it('takes a client’s local file through an upload (POST /v2/uploads, a PUT), whole or nested, for its own organization only', async () => {
    const upload = async (key: string, text: string) => {
      const created = await api(service.url, key, 'POST', '/v2/uploads', { size: Buffer.byteLength(text) });
      expect((await fetch(created.body.upload_url, { method: 'PUT', body: text })).status).toBe(200);
      return created.body.upload_id as string;
    };
    const id = await upload(service.key, 'uploaded words');
    const { body: read } = await run('local/read-file', { document: { upload_id: id, name: 'words.txt' } });
    expect([read.status, read.outputs[0]?.data]).toEqual(['finished', 'uploaded words']);
    const { body: nested } = await run('local/read-nested', { bundle: { video: { _type: 'sieve.File', upload_id: id, name: 'v.mp4' }, frames: [] } });
    expect([nested.status, nested.outputs[0]?.data]).toEqual(['finished', 'uploaded words']);

    const rivalKey = await service.createOrganization('uploader-rival');
    const rivalId = await upload(rivalKey, 'not yours');
    const { body: refused } = await run('local/read-file', { document: { upload_id: rivalId } });
    expect([refused.status, refused.error]).toEqual(['error', 'Input document could not be fetched: no such upload of this organization.']);
    expect((await run('local/read-file', { document: { upload_id: 7 } })).status).toBe(422);
  });

  it('lets a Python program pass local files, whole and in a dict, as Sieve’s SDK does: they are uploaded', async () => {
    const program = [
      'import json, os, sys, tempfile, sieve',
      'folder = tempfile.mkdtemp()',
      'def local(name, text):',
      '    path = os.path.join(folder, name)',
      '    open(path, "w").write(text)',
      '    return sieve.File(path)',
      'whole = sieve.function.get("local/read-file").run(local("a.txt", "from disk"))',
      'nested = sieve.function.get("local/read-nested").run({"video": local("v.mp4", "v"), "frames": [local("f.png", "f"), sieve.File("data:text/plain,d")]})',
      'made = sieve.function.get("local/write-nested").run("sdk")',
      'print(json.dumps([whole, nested, open(made["video"].path).read(), type(made["frames"][0]).__name__]))',
    ].join('\n');
    const { stdout, stderr } = await runSdkProgram(program, service, [], 60_000);
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual(['from disk', 'v|f|d', 'sdk video', 'File']);
    // Uploaded, not inlined: the job names the upload.
    const [latest] = (await api(service.url, service.key, 'GET', '/v2/functions/local/read-file/jobs?limit=1')).body.data;
    expect(JSON.stringify(latest.inputs)).toMatch(/"upload_id":"[^"]+","name":"a.txt"/);
  });

  it('refuses a signed file URL once changed or expired', async () => {
    const { body: job } = await run('local/write-file', { name: 'a.txt', text: 'a' });
    const url = new URL(job.outputs[0].data.url);
    url.searchParams.set('signature', '0'.repeat(64));
    expect((await fetch(url)).status).toBe(403);
    url.searchParams.set('expires', String(Date.now() * 1000 - 1));
    expect((await fetch(url)).status).toBe(403);
  });

  it('takes an earlier job’s output file URL of the same organization as an input, and not another organization’s', async () => {
    const { body: written } = await run('local/write-file', { name: 'note.txt', text: 'written before' });
    const own = written.outputs[0].data.url; // signed, as every read shows it
    const { body: read } = await run('local/read-file', { document: { url: own } });
    expect(read.status).toBe('finished');
    expect(read.outputs[0].data).toBe('written before');
    const route = `${service.url}/v2/jobs/${written.id}/files/0`; // the key-checked route, as before
    expect((await run('local/read-file', { document: route })).body.outputs[0].data).toBe('written before');

    // A public function, pushed by another organization that learnt the URL: the agent reads no file for it.
    await api(service.url, service.key, 'POST', '/v2/functions/local/read-file/edit', { visibility: 'public' });
    const rivalKey = await service.createOrganization('rival');
    const { body: stolen } = await runWith(service, rivalKey)('local/read-file', { document: own });
    expect(stolen.status).toBe('error');
    expect(stolen.error).toBe('Input document could not be fetched: no such file of this organization.');
  });
});

describe('file inputs where the operator allows loopback (SLUICE_INPUT_ALLOW)', () => {
  let service: TestService;
  let files: Awaited<ReturnType<typeof startFileServer>>;
  let run: ReturnType<typeof runWith>;

  beforeAll(async () => {
    files = await startFileServer();
    service = await startTestService({ SLUICE_INPUT_ALLOW: 'loopback' });
    run = runWith(service, service.key);
    await deployBoth(service);
  }, 60_000);
  afterAll(async () => {
    files.server.closeAllConnections();
    files.server.close();
    await service.close();
  });

  it('fetches an allowed URL, following redirects', async () => {
    const { body: job } = await run('local/read-file', { document: `${files.url}/redirect?to=/doc.txt` });
    expect(job.status).toBe('finished');
    expect(job.outputs[0].data).toBe('words from the file server');
  });

  it('checks every redirect again: one to the metadata address or a mapped form of it is refused', async () => {
    for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:a9fe:a9fe]/', 'http://10.0.0.1/', 'file:///etc/passwd']) {
      const { body: job } = await run('local/read-file', { document: `${files.url}/redirect?to=${encodeURIComponent(target)}` });
      expect([target, job.status]).toEqual([target, 'error']);
      expect(job.error).toMatch(/^Input document could not be fetched: (its host is not a public address|only http and https URLs are fetched)\.$/);
    }
  });

  it('stops fetching an input when its job is cancelled, and the replica takes the next job', async () => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/read-file', inputs: { document: `${files.url}/hang` } });
    await until(async () => files.requests.includes('/hang'));
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}`)).body.status).toBe('processing');
    expect((await api(service.url, service.key, 'DELETE', `/v2/jobs/${pushed.body.id}`)).status).toBe(200);
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}`)).body.status).toBe('cancelled');
    await until(async () => files.hangsClosed() === 1);
    const { body: next } = await run('local/read-file', { document: `${files.url}/doc.txt` });
    expect(next.status).toBe('finished');
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}`)).body.status).toBe('cancelled');
  });

  it('says the same about a missing file and a closed port: no status, no port', async () => {
    const missing = (await run('local/read-file', { document: `${files.url}/nothing-here` })).body;
    const closed = (await run('local/read-file', { document: 'http://127.0.0.1:9/doc.txt' })).body;
    expect(missing.error).toBe('Input document could not be fetched: the server did not send the file.');
    expect(closed.error).toBe(missing.error);
  });
});

describe('signed file URLs over time: a restart of the service, a webhook retried after the URL expired', () => {
  it('keeps a URL signed before a restart working after it: the signing key is kept in the data directory (mode 0600)', async () => {
    let service = await startTestService();
    try {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': WRITE }));
      await waitForBuild(service, 'local/write-file', deployed.body.version.id);
      const { body: job } = await runWith(service, service.key)('local/write-file', { name: 'kept.txt', text: 'still here' });
      const signed: string = job.outputs[0].data.url;
      service = await service.restart();
      const download = await fetch(signed);
      expect([download.status, await download.text()]).toEqual([200, 'still here']);
      expect((await stat(join(service.dataDir, 'url-signing-key'))).mode & 0o777).toBe(0o600);
    } finally {
      await service.close();
    }
  }, 60_000);

  it('signs a webhook’s File URLs at each attempt: a retry after the first URL expired carries one that downloads', async () => {
    // URLs last 2 s; the first retry comes 2.5 s after the first attempt.
    const service = await startTestService({ SLUICE_FILE_URL_EXPIRES_S: '2', SLUICE_WEBHOOK_RETRY_BASE_MS: '2500' });
    const receiver = await startWebhookReceiver();
    try {
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': WRITE }));
      await waitForBuild(service, 'local/write-file', deployed.body.version.id);
      receiver.failNext('/output', 500);
      receiver.failNext('/complete', 500);
      const webhooks = [
        { type: 'job.new_output', url: receiver.url('/output') },
        { type: 'job.complete', url: receiver.url('/complete') },
      ];
      await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/write-file', inputs: { name: 'late.txt', text: 'fresh' }, webhooks });
      const urlsOf = async (path: string) => {
        const hooks = await receiver.waitFor(path, 2, 20_000);
        return hooks.map((hook) => (path === '/output' ? JSON.parse(hook.body.body.output) : hook.body.body.outputs[0]).data.url as string);
      };
      for (const path of ['/output', '/complete']) {
        const [first, retried] = await urlsOf(path);
        const download = await fetch(retried as string);
        expect([path, download.status, await download.text()]).toEqual([path, 200, 'fresh']);
        expect((await fetch(first as string)).status).toBe(403); // expired by now
      }
    } finally {
      await receiver.close();
      await service.close();
    }
  }, 60_000);
});
