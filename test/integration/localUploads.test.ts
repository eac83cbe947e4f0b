import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileArtifacts } from '../../shared/adapters/local/fileArtifacts.js';
import { LocalUploads } from '../../shared/adapters/local/localUploads.js';
import { createNodeGateway } from '../../shared/http/nodeGateway.js';
import type { Services } from '../../shared/services/services.js';

const DAY_MICROS = 24 * 3600 * 1_000_000;

async function text(stream: AsyncIterable<Uint8Array> | null): Promise<string | null> {
  if (!stream) return null;
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('local upload URLs', () => {
  let dataDir = '';
  let server: Server;
  let now = 0;
  let uploads: LocalUploads;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-uploads-'));
    now = Date.now() * 1000;
    let url = '';
    uploads = new LocalUploads({ folder: join(dataDir, 'uploads'), publicUrl: () => url, clock: { now: () => now, nowNs: () => BigInt(now) * 1000n } });
    // The gateway with no routes: only the upload endpoint, served over real HTTP.
    server = createNodeGateway({ routes: [], endpoints: [uploads], services: {} as Services, logger: { error: () => undefined }, maxBodyBytes: 1024 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  const upload = (uploadId: string, size: number, expiresInS = 900) => uploads.urlFor({ organizationId: 'org-1', uploadId, size, expiresInS });
  const put = (url: string, body: Buffer) => fetch(url, { method: 'PUT', body });

  it('stores the body under the organization, byte for byte, past the gateway’s body limit', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));
    expect((await put(upload('u-1', bytes.length), bytes)).status).toBe(200);
    expect(await uploads.sizeOf('org-1', 'u-1')).toBe(4096);
    expect(await uploads.sizeOf('org-2', 'u-1')).toBeNull();
  });

  it('refuses a PUT once the URL has expired: 403 saying so, nothing stored', async () => {
    const url = upload('u-2', 3, 60);
    now += 61 * 1_000_000;
    const answer = await put(url, Buffer.from('abc'));
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as any).detail).toMatch(/has expired/);
    expect(await uploads.sizeOf('org-1', 'u-2')).toBeNull();
  });

  it('answers 405 to anything but PUT', async () => {
    expect((await fetch(upload('u-3', 3))).status).toBe(405);
  });

  it('removes uploads older than a day when the next upload URL is made', async () => {
    const artifacts = createFileArtifacts(dataDir, uploads);
    expect((await put(upload('old', 3), Buffer.from('old'))).status).toBe(200);
    now += DAY_MICROS - 60_000_000;
    await artifacts.uploadUrl({ organizationId: 'org-1', uploadId: 'new', size: 3, expiresInS: 900 });
    expect(await artifacts.uploadSize('org-1', 'old')).toBe(3);
    now += 120_000_000;
    await artifacts.uploadUrl({ organizationId: 'org-1', uploadId: 'newer', size: 3, expiresInS: 900 });
    expect(await artifacts.uploadSize('org-1', 'old')).toBeNull();
  });

  it('copies an upload to a version’s bundle and keeps the upload for the next deploy', async () => {
    const artifacts = createFileArtifacts(dataDir, uploads);
    expect((await put(upload('code', 7), Buffer.from('tarball'))).status).toBe(200);
    await artifacts.putBundleFromUpload('version-1', 'org-1', 'code');
    await artifacts.putBundleFromUpload('version-2', 'org-1', 'code');
    expect(await text(await artifacts.readBundle('version-1'))).toBe('tarball');
    expect(await text(await artifacts.readBundle('version-2'))).toBe('tarball');
    expect(await text(await artifacts.readUpload('org-1', 'code'))).toBe('tarball');
    expect(await artifacts.readUpload('org-2', 'code')).toBeNull();
    expect(await artifacts.readBundle('version-3')).toBeNull();
  });

  it('keeps a local file as an upload of the organization (a File a job passes on), read back as a client’s upload is, and swept as one', async () => {
    const artifacts = createFileArtifacts(dataDir, uploads);
    const source = join(dataDir, 'tone.wav');
    await writeFile(source, 'RIFF and samples');
    await artifacts.putUploadFile('org-1', 'passed-1', source, 16);
    expect(await artifacts.uploadSize('org-1', 'passed-1')).toBe(16);
    expect(await text(await artifacts.readUpload('org-1', 'passed-1'))).toBe('RIFF and samples');
    expect(await artifacts.readUpload('org-2', 'passed-1')).toBeNull();
    expect((await readdir(join(dataDir, 'uploads', 'org-1'))).filter((name) => name.includes('partial'))).toEqual([]);
    await expect(artifacts.putUploadFile('../org-1', 'passed-2', source, 16)).rejects.toThrow(/Not an upload/);
    // The size checked is what is stored: a file grown since is cut there, one that shrank is refused.
    await artifacts.putUploadFile('org-1', 'cut', source, 4);
    expect(await text(await artifacts.readUpload('org-1', 'cut'))).toBe('RIFF');
    await expect(artifacts.putUploadFile('org-1', 'shrunk', source, 100)).rejects.toThrow(/shrank/);
    expect(await artifacts.uploadSize('org-1', 'shrunk')).toBeNull();
    await artifacts.putUploadFile('org-1', 'empty', source, 0);
    expect(await artifacts.uploadSize('org-1', 'empty')).toBe(0);
    // Jobs passing files sweep too, an hour apart at most, with no client asking for an upload URL.
    now += DAY_MICROS + 60_000_000;
    await artifacts.putUploadFile('org-1', 'passed-3', source, 16);
    expect(await artifacts.uploadSize('org-1', 'passed-1')).toBeNull();
    expect(await artifacts.uploadSize('org-1', 'passed-3')).toBe(16);
  });
});
