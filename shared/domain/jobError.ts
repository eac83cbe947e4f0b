/**
 * The most bytes (UTF-8) of a job's `error` a store keeps. A traceback can be any length (a
 * recursion error, an exception whose message holds a whole input), and lists read each job's
 * error whole, so the stores cut it when they write it.
 */
export const MAX_JOB_ERROR_BYTES = 64 * 1024;

/** What a cut error starts with: how much was left out, before the traceback's end that was kept. */
export const cutErrorMarker = (cutBytes: number) => `[Sluice cut ${cutBytes} bytes of this error: its first part; the end follows.]\n`;

/**
 * The error as a store keeps it: whole while it is at most MAX_JOB_ERROR_BYTES, else its end
 * (where a traceback names the exception and the frame that raised it) behind a marker saying
 * how much was cut, the whole within MAX_JOB_ERROR_BYTES.
 */
export function cappedJobError(error: string): string {
  // At most 3 UTF-8 bytes per UTF-16 unit: most errors (every job's '' among them) need no encoding.
  if (error.length * 3 <= MAX_JOB_ERROR_BYTES) return error;
  const bytes = Buffer.from(error, 'utf8');
  if (bytes.length <= MAX_JOB_ERROR_BYTES) return error;
  // The marker's length depends on the number it names: sized for the largest it can say.
  const room = MAX_JOB_ERROR_BYTES - Buffer.byteLength(cutErrorMarker(bytes.length), 'utf8');
  let start = bytes.length - room;
  // Start on a character's first byte (never on a UTF-8 continuation byte 10xxxxxx).
  while (start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start += 1;
  return cutErrorMarker(start) + bytes.subarray(start).toString('utf8');
}
