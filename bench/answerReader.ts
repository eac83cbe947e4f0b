// The bench's load generators' minimal HTTP/1.1 response reader: just enough of a keep-alive
// answer (status, content-length or chunked end) to know where it ends, so a generator sharing
// the machine with the server it measures costs as little CPU as it can.
import type { Socket } from 'node:net';

/** One answer: its three-digit status, and its body's bytes as sent (a chunked body keeps its framing). */
export interface Answer {
  status: string;
  body: Buffer;
}

/** Calls `onAnswer` for each complete answer read off `socket`, in order. */
export function readAnswers(socket: Socket, onAnswer: (answer: Answer) => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (;;) {
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const end = bodyEnd(head, buffered, headEnd + 4);
      if (end < 0) return;
      const body = buffered.subarray(headEnd + 4, end);
      buffered = buffered.subarray(end);
      onAnswer({ status: head.slice(9, 12), body });
    }
  });
}

/** Where the answer whose head ends at `bodyStart` ends: content-length, or a chunked body's last chunk; -1 while incomplete. */
function bodyEnd(head: string, buffered: Buffer, bodyStart: number): number {
  const length = /content-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return buffered.length >= bodyStart + Number(length) ? bodyStart + Number(length) : -1;
  if (!/transfer-encoding: *chunked/i.test(head)) return bodyStart;
  // Small JSON answers: the last chunk's marker cannot occur inside them.
  const last = buffered.indexOf('0\r\n\r\n', bodyStart);
  return last < 0 ? -1 : last + 5;
}
