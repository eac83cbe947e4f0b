import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createS3Artifacts } from '../../shared/adapters/aws/s3Artifacts.js';
import { dnsResolver } from '../../shared/adapters/dnsResolver.js';
import { createMemoryLogFeed } from '../../shared/adapters/local/memoryLogFeed.js';
import { createMemoryJobEvents } from '../../shared/adapters/local/memoryJobEvents.js';
import { createSqliteStore } from '../../shared/adapters/local/sqlite/sqliteStore.js';
import { createSystemClock } from '../../shared/adapters/systemClock.js';
import { DEFAULT_PRICES } from '../../shared/domain/pricing.js';
import { createNodeGateway } from '../../shared/http/nodeGateway.js';
import { ROUTES } from '../../shared/http/routeTable.js';
import { inspectFunctions } from '../../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../../shared/packaging/packDirectory.js';
import type { Artifacts } from '../../shared/ports/artifacts.js';
import type { Store } from '../../shared/ports/store.js';
import { createServices, type Services } from '../../shared/services/services.js';
import { WebhookDeliverer } from '../../shared/services/webhookDeliverer.js';
import { WebhookSecrets } from '../../shared/services/webhookSecrets.js';
import { WebhookService } from '../../shared/services/webhookService.js';
import { ownFilePath } from '../../shared/domain/fileOutputs.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';
import { aJob, anOrganization, anOutput } from '../support/fixtures.js';
import { api, pythonFunction, writeFunctionDir } from '../e2e/support/testService.js';
import { motoServerOnPath, startMotoServer, type MotoServer } from '../support/motoServer.js';
import { checkBundle } from '../../shared/packaging/bundleReader.js';
import { gzippedTar, MAIN_PY } from '../e2e/support/hostileBundles.js';

const BUCKET = 'sluice-artifacts';
const MAX_UPLOAD_BYTES = 64 * 1024;

const onPath = motoServerOnPath();
if (!onPath) console.warn('Skipping the S3 tests on moto: moto_server is not on PATH (install it with: pip install "moto[server]>=5").');

/** The query parameters of a presigned URL. */
const paramsOf = (url: string) => new URL(url).searchParams;

describe.skipIf(!onPath)('S3 artifacts on a real moto_server', () => {
  let moto: MotoServer;
  let client: S3Client;
  let artifacts: Artifacts;
  let folder = '';

  beforeAll(async () => {
    moto = await startMotoServer();
    client = moto.s3();
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    artifacts = createS3Artifacts({ client, bucket: BUCKET });
    folder = await mkdtemp(join(tmpdir(), 'sluice-moto-'));
  });
  afterAll(async () => {
    await moto?.close();
    await rm(folder, { recursive: true, force: true });
  });

  const bytesAt = async (key: string) =>
    Buffer.from(await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray());

  describe('bundle uploads', () => {
    it('takes an upload through the presigned PUT URL with node’s fetch, and copies exactly those bytes to the bundle key', async () => {
      const bundle = randomBytes(300 * 1024);
      const url = await artifacts.uploadUrl({ organizationId: 'org-1', uploadId: 'upload-1', size: bundle.length, expiresInS: 900 });
      const answer = await fetch(url, { method: 'PUT', body: bundle });
      expect(answer.status).toBe(200);
      expect(await artifacts.uploadSize('org-1', 'upload-1')).toBe(bundle.length);

      await artifacts.putBundleFromUpload('version-1', 'org-1', 'upload-1');
      expect((await bytesAt('bundles/version-1.tar.gz')).equals(bundle)).toBe(true);
      expect((await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'bundles/version-1.tar.gz' }))).ContentType).toBe('application/gzip');
      // The upload stays for the directory's other functions.
      expect(await artifacts.uploadSize('org-1', 'upload-1')).toBe(bundle.length);
    });

    it('signs the length and the host into the URL (S3 refuses any other length) and expires it when asked', async () => {
      const params = paramsOf(await artifacts.uploadUrl({ organizationId: 'org-1', uploadId: 'upload-2', size: 1234, expiresInS: 900 }));
      expect(params.get('X-Amz-SignedHeaders')).toBe('content-length;host');
      expect(params.get('X-Amz-Expires')).toBe('900');
      expect(params.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
      // No checksum of the empty body the SDK saw: S3 would hold any real upload against it.
      expect([...params.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    });

    it('keeps a local file as an upload of the organization, which reads back byte for byte, for that organization only', async () => {
      const data = randomBytes(200 * 1024);
      const source = join(folder, 'passed.wav');
      await writeFile(source, data);
      await artifacts.putUploadFile('org-1', 'passed-1', source, data.length);
      expect(await artifacts.uploadSize('org-1', 'passed-1')).toBe(data.length);
      const chunks: Buffer[] = [];
      for await (const chunk of (await artifacts.readUpload('org-1', 'passed-1'))!) chunks.push(Buffer.from(chunk));
      expect(Buffer.concat(chunks).equals(data)).toBe(true);
      expect(await artifacts.readUpload('org-2', 'passed-1')).toBeNull();
      // The size checked is what is stored: a file grown since is cut there; an empty one is stored empty.
      await artifacts.putUploadFile('org-1', 'passed-2', source, 1000);
      expect(await artifacts.uploadSize('org-1', 'passed-2')).toBe(1000);
      await artifacts.putUploadFile('org-1', 'passed-3', source, 0);
      expect(await artifacts.uploadSize('org-1', 'passed-3')).toBe(0);
    });

    it('keys uploads by organization: another organization’s id finds nothing', async () => {
      const url = await artifacts.uploadUrl({ organizationId: 'org-1', uploadId: 'upload-3', size: 3, expiresInS: 900 });
      expect((await fetch(url, { method: 'PUT', body: Buffer.from('abc') })).status).toBe(200);
      expect(await artifacts.uploadSize('org-2', 'upload-3')).toBeNull();
      expect(await artifacts.uploadSize('org-1', 'no-such-upload')).toBeNull();
    });
  });

  describe('file outputs', () => {
    it('hands out a presigned GET URL, good for an hour by default, that returns the file’s bytes under its name', async () => {
      const data = randomBytes(100 * 1024);
      const source = join(folder, 'scratch.bin');
      await writeFile(source, data);
      await artifacts.putOutputFile('job-1', 0, 'result.bin', source);

      const url = await artifacts.outputFileUrl('job-1', 0);
      expect(url).not.toBeNull();
      expect(paramsOf(url as string).get('X-Amz-Expires')).toBe('3600');
      expect(paramsOf(url as string).get('response-content-disposition')).toBe(`attachment; filename="result.bin"; filename*=UTF-8''result.bin`);
      const answer = await fetch(url as string);
      expect(answer.status).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer()).equals(data)).toBe(true);
    });

    it('names a file with any Unicode name in RFC 5987 form, and streams it to the agent', async () => {
      const source = join(folder, 'scratch.txt');
      await writeFile(source, 'unicode ✓');
      await artifacts.putOutputFile('job-2', 0, 'résumé ✓ 東京.txt', source);
      // What S3 is asked to send as Content-Disposition (moto does not send it back).
      const disposition = paramsOf((await artifacts.outputFileUrl('job-2', 0)) as string).get('response-content-disposition') ?? '';
      expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)?.[1] ?? '')).toBe('résumé ✓ 東京.txt');
      expect(disposition).toContain('filename="r_sum_ _ __.txt"');
      const opened = await artifacts.openOutputFile('job-2', 0);
      expect(opened).toMatchObject({ name: 'résumé ✓ 東京.txt', size: Buffer.byteLength('unicode ✓') });
      const chunks: Buffer[] = [];
      for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('unicode ✓');
    });

    it('stores a file with the Content-Type of its name, which the signed URL a job shows serves without a key', async () => {
      const source = join(folder, 'scratch.mp4');
      await writeFile(source, 'not really a video');
      await artifacts.putOutputFile('job-3', 1, 'clip.mp4', source);
      const url = await artifacts.signedOutputFileUrl('job-3', 1, 'clip.mp4');
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('video/mp4');
      expect(await answer.text()).toBe('not really a video');
    });

    it('recognizes its own signed output file URLs, expired or not, and no other URL', async () => {
      const url = new URL(await artifacts.signedOutputFileUrl('job-3', 1, 'clip.mp4'));
      expect(await artifacts.outputFileOfUrl(url)).toEqual({ jobId: 'job-3', slot: '1' });
      url.search = '';
      expect(await artifacts.outputFileOfUrl(url)).toEqual({ jobId: 'job-3', slot: '1' });
      const bundle = new URL(url);
      bundle.pathname = bundle.pathname.replace(/files\/.*$/, 'bundles/v.tar.gz');
      expect(await artifacts.outputFileOfUrl(bundle)).toBeNull();
      expect(await artifacts.outputFileOfUrl(new URL('https://example.com/files/job-3/1/clip.mp4'))).toBeNull();
    });

    it('gives a webhook attempt its File outputs as URLs presigned at that attempt, not when the delivery was made, which download', async () => {
      const store = createSqliteStore(':memory:');
      try {
        const organization = anOrganization();
        await store.organizations.createIfAbsent(organization);
        const source = join(folder, 'hooked.txt');
        await writeFile(source, 'for the receiver');
        await artifacts.putOutputFile('job-hooked', 0, 'hooked.txt', source);
        const job = aJob({
          id: 'job-hooked',
          organizationId: organization.id,
          status: 'processing',
          webhooks: [{ type: 'job.new_output', url: 'https://hooks.example.com/in' }],
        });
        const output = anOutput({ jobId: job.id, index: 0, type: 'sieve.File', data: { url: ownFilePath(job.id, 0), name: 'hooked.txt' } });
        const scheduled: WebhookDelivery[] = [];
        const clock = createSystemClock();
        // The delivery is made two hours before its attempt (a receiver down meanwhile, say).
        vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 2 * 3600_000 });
        try {
          await new WebhookService(store, { schedule: async (delivery) => void scheduled.push(delivery), reschedule: async () => 'started' }, clock).onJobEvent(
            { type: 'output', job, output },
          );
        } finally {
          vi.useRealTimers();
        }
        const bodies: string[] = [];
        const deliverer = new WebhookDeliverer(
          store,
          new WebhookSecrets(store),
          async ({ body }) => (bodies.push(body), { status: 200, error: null, permanent: false }),
          clock,
          1000,
          artifacts,
        );
        await deliverer.attempt(scheduled[0]!.id);
        const sent = JSON.parse(JSON.parse(bodies[0]!).body.output).data.url as string;
        const signedAt = paramsOf(sent).get('X-Amz-Date') ?? '';
        const at = Date.UTC(
          +signedAt.slice(0, 4),
          +signedAt.slice(4, 6) - 1,
          +signedAt.slice(6, 8),
          +signedAt.slice(9, 11),
          +signedAt.slice(11, 13),
          +signedAt.slice(13, 15),
        );
        expect(Math.abs(Date.now() - at)).toBeLessThan(60_000);
        const answer = await fetch(sent);
        expect([answer.status, await answer.text()]).toEqual([200, 'for the receiver']);
      } finally {
        await store.close();
      }
    });

    it('answers null for a file that was never stored', async () => {
      expect(await artifacts.outputFileUrl('job-1', 7)).toBeNull();
    });
  });

  describe('the routes of the AWS mode over it', () => {
    let store: Store;
    let services: Services;
    let gateway: Server;
    let url = '';
    let key = '';
    let otherKey = '';

    beforeAll(async () => {
      store = createSqliteStore(join(folder, 'sluice.db'));
      const clock = createSystemClock();
      // Builds, queues, compute and webhooks take no part in an upload, a deploy or a file download.
      services = createServices({
        store,
        artifacts,
        builder: { enqueue: async () => undefined, idle: async () => undefined },
        clock,
        queue: { enqueue: async () => undefined, depth: () => 0 } as never,
        events: createMemoryJobEvents(),
        logFeed: createMemoryLogFeed(),
        streamPollMs: undefined,
        compute: () => ({
          stopJob: () => undefined,
          currentWorkers: async () => ({ starting: 0, setup: 0, active: 0, idle: 0, awaiting_resources: 0 }),
          applyReplicaBounds: async () => undefined,
          machineTypes: async () => [],
        }),
        deliveryScheduler: () => ({}) as never,
        webhookSender: {} as never,
        resolveHost: dnsResolver,
        defaultPythonVersion: '3.11',
        maxUploadBytes: MAX_UPLOAD_BYTES,
        checkBundle: (bundle) => checkBundle(bundle, { maxUnpackedBytes: 1024 * 1024, maxEntries: 100 }),
        awaitTimeoutMs: 1000,
        maxQueuedPerVersion: 10_000,
        webhookAllow: [],
        webhookRetryBaseMs: 1000,
        pricing: { prices: DEFAULT_PRICES, customPrices: new Map() },
        onObserverError: () => undefined,
      });
      key = (await services.keys.createKey('acme')).secret;
      otherKey = (await services.keys.createKey('rival')).secret;
      // The same middy handlers the Lambdas run, behind the local gateway.
      gateway = createNodeGateway({ routes: ROUTES, services, logger: { error: () => undefined }, maxBodyBytes: 6 * 1024 * 1024 });
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => gateway?.close(resolve));
      await store?.close();
    });

    const call = (method: string, path: string, body?: unknown, as = key) => api(url, as, method, path, body);
    const metadataOf = async (directory: string) => {
      const inspected = await inspectFunctions(directory, 'python3');
      if (!inspected.ok) throw new Error(inspected.errors.join('; '));
      return inspected.functions[0];
    };

    it('deploys from a presigned upload: the version’s bundle key holds the uploaded bytes', async () => {
      const dir = await writeFunctionDir({ 'main.py': pythonFunction('echo') });
      const bundle = await packDirectory(dir);
      const { status, body: upload } = await call('POST', '/v2/uploads', { size: bundle.length });
      expect(status).toBe(201);
      expect(upload.upload_url).toMatch(new RegExp(`^${moto.endpoint}/${BUCKET}/uploads/[^/]+/${upload.upload_id}\\?`));
      expect((await fetch(upload.upload_url, { method: 'PUT', body: bundle })).status).toBe(200);

      const deployed = await call('POST', '/v2/functions/acme/echo/versions', { metadata: await metadataOf(dir), upload_id: upload.upload_id });
      expect(deployed.status).toBe(201);
      expect((await bytesAt(`bundles/${deployed.body.version.id}.tar.gz`)).equals(bundle)).toBe(true);

      const stolen = await call('POST', '/v2/functions/rival/echo/versions', { metadata: await metadataOf(dir), upload_id: upload.upload_id }, otherKey);
      expect(stolen.status).toBe(404);
      expect(stolen.body.detail).toContain('not found');
    });

    it('refuses at deploy an upload larger than the limit that storage took anyway (moto checks no signature)', async () => {
      const dir = await writeFunctionDir({ 'main.py': pythonFunction('bloated') });
      const { body: upload } = await call('POST', '/v2/uploads', { size: 10 });
      expect((await fetch(upload.upload_url, { method: 'PUT', body: randomBytes(MAX_UPLOAD_BYTES + 1) })).status).toBe(200);
      const { status, body } = await call('POST', '/v2/functions/acme/bloated/versions', { metadata: await metadataOf(dir), upload_id: upload.upload_id });
      expect(status).toBe(413);
      expect(body.detail).toMatch(/the limit is 0\.1 MB/);
      expect((await call('GET', '/v2/functions/acme/bloated')).status).toBe(404);
    });

    it('reads an upload through from S3 at deploy, and refuses a bomb or a link in it, creating nothing', async () => {
      const dir = await writeFunctionDir({ 'main.py': pythonFunction('hostile') });
      const metadata = await metadataOf(dir);
      const deployFrom = async (bundle: Buffer) => {
        const { body: upload } = await call('POST', '/v2/uploads', { size: bundle.length });
        expect((await fetch(upload.upload_url, { method: 'PUT', body: bundle })).status).toBe(200);
        return call('POST', '/v2/functions/acme/hostile/versions', { metadata, upload_id: upload.upload_id });
      };
      const bomb = await deployFrom(
        await gzippedTar([
          { path: 'main.py', content: MAIN_PY },
          { path: 'weights.bin', size: 8 * 1024 * 1024 },
        ]),
      );
      expect(bomb.status).toBe(413);
      expect(bomb.body.detail).toContain('SLUICE_MAX_BUNDLE_UNPACKED_MB');
      const link = await deployFrom(
        await gzippedTar([
          { path: 'main.py', content: MAIN_PY },
          { path: 'etc', type: '2', linkpath: '/etc' },
        ]),
      );
      expect(link.status).toBe(422);
      expect(link.body.detail).toContain('"etc" is a SymbolicLink');
      expect((await call('GET', '/v2/functions/acme/hostile')).status).toBe(404);
    });

    it('answers a file output with a 307 to a presigned URL, to its job’s organization only', async () => {
      const { body: pushed } = await call('POST', '/v2/push', { function: 'acme/echo', inputs: { text: 'hi' } });
      expect(pushed.id).toBeTypeOf('string');
      const data = randomBytes(7 * 1024 * 1024);
      const source = join(folder, 'big-output.bin');
      await writeFile(source, data);
      // What a worker does with a sluice.File output.
      await artifacts.putOutputFile(pushed.id, 0, 'big-output.bin', source);

      const answer = await fetch(`${url}/v2/jobs/${pushed.id}/files/0`, { headers: { 'x-api-key': key }, redirect: 'manual' });
      expect(answer.status).toBe(307);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const location = answer.headers.get('location') as string;
      expect(location.startsWith(`${moto.endpoint}/${BUCKET}/files/${pushed.id}/0/big-output.bin?`)).toBe(true);
      const download = await fetch(location);
      expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);

      const foreign = await fetch(`${url}/v2/jobs/${pushed.id}/files/0`, { headers: { 'x-api-key': otherKey }, redirect: 'manual' });
      expect(foreign.status).toBe(404);
      expect(foreign.headers.get('location')).toBeNull();
      expect((await fetch(`${url}/v2/jobs/${pushed.id}/files/3`, { headers: { 'x-api-key': key }, redirect: 'manual' })).status).toBe(404);
    });
  });
});
