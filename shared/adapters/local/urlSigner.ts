import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signs the URLs the local mode hands out in place of presigned S3 URLs, with a secret of this
 * process: a URL works without an API key until it expires or the service restarts.
 */
export class UrlSigner {
  private readonly secret = randomBytes(32);

  sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('hex');
  }

  /** Whether `given` is the signature of `text`, compared in constant time. */
  holds(given: string, text: string): boolean {
    const a = Buffer.from(given);
    const b = Buffer.from(this.sign(text));
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
