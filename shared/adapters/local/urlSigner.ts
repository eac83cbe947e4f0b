import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signs the URLs the local mode hands out in place of presigned S3 URLs, so that they work
 * without an API key until they expire. The key is derived from the service's signing secret
 * (urlSigningSecret.ts, kept in the data directory so that URLs outlive a restart) and the
 * URLs' purpose, so that a signature made for one kind of URL never holds for another.
 */
export class UrlSigner {
  private readonly key: Buffer;

  /** Without a secret, one of this object's own: its URLs stop working with the process. */
  constructor(purpose: string, secret: Buffer = randomBytes(32)) {
    this.key = createHmac('sha256', secret).update(`sluice-url-signer:${purpose}`).digest();
  }

  sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('hex');
  }

  /** Whether `given` is the signature of `text`, compared in constant time. */
  holds(given: string, text: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(this.sign(text));
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
