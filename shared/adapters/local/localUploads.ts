import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UPLOAD_KEPT_DAYS, uploadIdSchema } from '../../domain/upload.js';
import type { UploadRequest } from '../../ports/artifacts.js';
import type { Clock } from '../../ports/clock.js';
import { UrlSigner } from './urlSigner.js';

export interface LocalUploadsOptions {
  /** <data dir>/uploads */
  folder: string;
  /** The service's base URL, for the upload URLs it hands out. */
  publicUrl: () => string;
  clock: Clock;
  /** The service's URL signing secret (urlSigningSecret.ts); absent, one of this object's own. */
  signingSecret?: Buffer;
}

/** What the gateway sends back for a PUT: a status and, for a refusal, its detail. */
export interface UploadAnswer {
  status: number;
  body?: { detail: string };
}

const PATH_PREFIX = '/uploads/';
const KEPT_MICROS = UPLOAD_KEPT_DAYS * 24 * 3600 * 1_000_000;
const SWEEP_EVERY_MICROS = 3600 * 1_000_000;
const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';
const refuse = (status: number, detail: string): UploadAnswer => ({ status, body: { detail } });

/** Raised while streaming a body longer than the upload's size. */
class TooLong extends Error {}

/**
 * The local mode's presigned uploads: URLs to this service (`PUT /uploads/<organization>/<upload>`),
 * signed with the service's URL signing secret over the organization, upload, size and expiry, so
 * a URL works without an API key, for that size, until it expires. The
 * body is streamed to <data dir>/uploads/<organization>/<upload>.tar.gz, never held in memory.
 */
export class LocalUploads {
  readonly pathPrefix = PATH_PREFIX;
  private readonly signer: UrlSigner;
  /** When the last sweep began (microseconds), for putFile's. */
  private sweptAt = 0;

  constructor(private readonly options: LocalUploadsOptions) {
    this.signer = new UrlSigner('uploads', options.signingSecret);
  }

  urlFor({ organizationId, uploadId, size, expiresInS }: UploadRequest): string {
    const expires = this.options.clock.now() + expiresInS * 1_000_000;
    const query = new URLSearchParams({
      size: String(size),
      expires: String(expires),
      signature: this.signer.sign(signedText(organizationId, uploadId, size, expires)),
    });
    return `${this.options.publicUrl()}${PATH_PREFIX}${organizationId}/${uploadId}?${query}`;
  }

  pathOf(organizationId: string, uploadId: string): string {
    return join(this.options.folder, organizationId, `${uploadId}.tar.gz`);
  }

  async sizeOf(organizationId: string, uploadId: string): Promise<number | null> {
    if (!isSafeName(organizationId) || !isSafeName(uploadId)) return null;
    return stat(this.pathOf(organizationId, uploadId)).then(
      (info) => info.size,
      (error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      },
    );
  }

  /** Keeps a local file's first `size` bytes as an upload of the organization, whole or not at all (a File a job passes to another function). */
  async putFile(organizationId: string, uploadId: string, sourcePath: string, size: number): Promise<void> {
    if (!isSafeName(organizationId) || !isSafeName(uploadId)) throw new Error(`Not an upload: ${organizationId}/${uploadId}`);
    // Jobs may pass files with no client asking for an upload URL (where the sweep runs) for long: sweep here too, now and then.
    if (this.options.clock.now() - this.sweptAt > SWEEP_EVERY_MICROS) await this.sweep();
    const path = this.pathOf(organizationId, uploadId);
    await mkdir(join(path, '..'), { recursive: true });
    const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
    try {
      // Exactly `size` bytes: a file that grows while it is copied is cut where it was checked.
      const source = size === 0 ? Readable.from([]) : createReadStream(sourcePath, { start: 0, end: size - 1 });
      await pipeline(source, createWriteStream(partial));
      if ((await stat(partial)).size !== size) throw new Error(`${sourcePath} shrank while it was copied`);
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  /** Removes uploads older than the time they are kept for. */
  async sweep(): Promise<void> {
    this.sweptAt = this.options.clock.now();
    const oldest = this.options.clock.now() - KEPT_MICROS;
    const organizations = await readdir(this.options.folder).catch((error: unknown) => (isMissing(error) ? [] : Promise.reject(error)));
    for (const organization of organizations) {
      const folder = join(this.options.folder, organization);
      for (const name of await readdir(folder).catch(() => [])) {
        const path = join(folder, name);
        const info = await stat(path).catch(() => null);
        if (info && info.mtimeMs * 1000 < oldest) await rm(path, { force: true });
      }
    }
  }

  /** Serves a PUT to an upload URL: checks its signature, expiry and size, then stores the body. */
  async serve(request: IncomingMessage, url: URL): Promise<UploadAnswer> {
    if (request.method !== 'PUT') return refuse(405, 'Method Not Allowed');
    const [organizationId = '', uploadId = '', ...rest] = url.pathname.slice(PATH_PREFIX.length).split('/');
    const size = Number(url.searchParams.get('size'));
    const expires = Number(url.searchParams.get('expires'));
    const signature = url.searchParams.get('signature') ?? '';
    const valid = rest.length === 0 && isSafeName(organizationId) && isSafeName(uploadId) && Number.isSafeInteger(size) && Number.isSafeInteger(expires);
    if (!valid || !this.signer.holds(signature, signedText(organizationId, uploadId, size, expires))) {
      return refuse(403, 'This upload URL is not valid: use the upload_url that POST /v2/uploads returned, unchanged.');
    }
    if (this.options.clock.now() > expires) return refuse(403, 'This upload URL has expired: ask for a new one with POST /v2/uploads.');
    const announced = request.headers['content-length'];
    if (announced !== undefined && Number(announced) !== size) return refuse(400, wrongSize(size, announced));
    return this.store(request, this.pathOf(organizationId, uploadId), size);
  }

  private async store(request: IncomingMessage, path: string, size: number): Promise<UploadAnswer> {
    await mkdir(join(path, '..'), { recursive: true });
    const partial = `${path}.${randomBytes(6).toString('hex')}.partial`;
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        done(received > size ? new TooLong() : null, chunk);
      },
    });
    try {
      await pipeline(request, counter, createWriteStream(partial));
      if (received !== size) {
        await rm(partial, { force: true });
        return refuse(400, wrongSize(size, String(received)));
      }
      await rename(partial, path);
      return { status: 200 };
    } catch (error) {
      await rm(partial, { force: true });
      if (error instanceof TooLong) return refuse(413, `This upload takes ${size} bytes, and the body is longer.`);
      throw error;
    }
  }
}

const signedText = (organizationId: string, uploadId: string, size: number, expires: number) => `${organizationId}/${uploadId}/${size}/${expires}`;

/** Organization and upload ids as path segments: nothing that could leave the uploads folder. */
const isSafeName = (text: string) => uploadIdSchema.safeParse(text).success;

const wrongSize = (size: number, got: string) => `This upload takes exactly ${size} bytes (the size given to POST /v2/uploads); the body has ${got}.`;
