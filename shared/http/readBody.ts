import type { IncomingMessage } from 'node:http';

/**
 * A request's body; `too_large` once it passes `limit` bytes, `too_slow` when it has not all
 * arrived within `deadlineMs` (a client trickling a body must not hold a request open). Either
 * way the rest is left unread.
 */
export function readBody(request: IncomingMessage, limit: number, deadlineMs = Infinity): Promise<Buffer | 'too_large' | 'too_slow'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (answer: 'too_large' | 'too_slow') => {
      clearTimeout(timer);
      request.removeAllListeners('data');
      request.pause();
      resolve(answer);
    };
    const timer = Number.isFinite(deadlineMs) ? setTimeout(() => stop('too_slow'), deadlineMs) : undefined;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop('too_large');
      chunks.push(chunk);
    });
    request.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
