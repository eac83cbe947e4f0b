/**
 * `Content-Disposition` for a download saved under the file's own name, whatever its script:
 * `filename*` (RFC 5987) carries the name in UTF-8, and `filename` an ASCII stand-in for old
 * clients, with quotes, backslashes and control characters made harmless.
 */
export function attachmentDisposition(name: string): string {
  const wellFormed = Buffer.from(name, 'utf8').toString('utf8'); // a lone surrogate becomes U+FFFD
  const fallback = wellFormed.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(wellFormed).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
