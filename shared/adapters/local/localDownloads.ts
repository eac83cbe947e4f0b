import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../ports/clock.js';
import type { OutputFileContent } from '../../ports/artifacts.js';
import { UrlSigner } from './urlSigner.js';
import { parseFileSlot, type FileSlot } from '../../domain/fileOutputs.js';
import type { OutputFileRef } from '../../ports/artifacts.js';

export interface LocalDownloadsOptions {
  /** The service's base URL, for the download URLs it hands out. */
  publicUrl: () => string;
  clock: Clock;
  expiresInS: number;
  /** The service's URL signing secret (urlSigningSecret.ts), kept across restarts; absent, one of this object's own. */
  signingSecret?: Buffer;
  open(jobId: string, slot: string): Promise<OutputFileContent | null>;
}

export type DownloadAnswer = { status: number; body: { detail: string } } | { status: 200; file: OutputFileContent };

const PATH_PREFIX = '/files/';

/**
 * The local mode's presigned downloads of output files: `GET /files/<job>/<slot>` signed over
 * job, slot and expiry, which `GET /v2/jobs/{id}/files/{index}` redirects to as it redirects to
 * S3 on AWS. The gateway streams the file from disk, so a large one is never held in memory.
 */
export class LocalDownloads {
  readonly pathPrefix = PATH_PREFIX;
  private readonly signer: UrlSigner;

  constructor(private readonly options: LocalDownloadsOptions) {
    this.signer = new UrlSigner('downloads', options.signingSecret);
  }

  urlFor(jobId: string, slot: FileSlot): string {
    const expires = this.options.clock.now() + this.options.expiresInS * 1_000_000;
    const query = new URLSearchParams({ expires: String(expires), signature: this.signer.sign(signedText(jobId, String(slot), expires)) });
    return `${this.options.publicUrl()}${PATH_PREFIX}${encodeURIComponent(jobId)}/${slot}?${query}`;
  }

  /** The file one of these URLs names, whatever its signature, or null for any other URL. */
  fileOf(url: URL): OutputFileRef | null {
    const prefix = `${this.options.publicUrl()}${PATH_PREFIX}`;
    if (!url.href.startsWith(prefix)) return null;
    const match = /^([^/?#]+)\/([\d.]+)(?:[?#]|$)/.exec(url.href.slice(prefix.length));
    const slot = match ? parseFileSlot(match[2] as string) : null;
    if (!match || slot === null) return null;
    try {
      return { jobId: decodeURIComponent(match[1] as string), slot };
    } catch {
      return null;
    }
  }

  async serve(request: IncomingMessage, url: URL): Promise<DownloadAnswer> {
    if (request.method !== 'GET') return { status: 405, body: { detail: 'Method Not Allowed' } };
    const [jobId = '', slotText = '', ...rest] = url.pathname.slice(PATH_PREFIX.length).split('/').map(decodeURIComponent);
    const slot = parseFileSlot(slotText);
    const expires = Number(url.searchParams.get('expires'));
    const signature = url.searchParams.get('signature') ?? '';
    if (rest.length > 0 || slot === null || !Number.isSafeInteger(expires) || !this.signer.holds(signature, signedText(jobId, slot, expires))) {
      return { status: 403, body: { detail: 'This download URL is not valid: use the URL GET /v2/jobs/{id}/files/{index} redirects to, unchanged.' } };
    }
    if (this.options.clock.now() > expires)
      return { status: 403, body: { detail: 'This download URL has expired: ask GET /v2/jobs/{id}/files/{index} again.' } };
    const file = await this.options.open(jobId, slot);
    return file ? { status: 200, file } : { status: 404, body: { detail: 'File not found.' } };
  }
}

const signedText = (jobId: string, slot: string, expires: number) => `${jobId}/${slot}/${expires}`;
