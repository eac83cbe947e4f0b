/**
 * Time as the service keeps it: integer microseconds since the Unix epoch (UTC).
 * Microseconds are what the wire format prints (six fractional digits), and they
 * stay exact in a JS number until the year 2255.
 */
export type Micros = number;

/** `2024-12-15T01:41:59.195000`: UTC, six fractional digits, no zone suffix. */
export function formatTimestamp(micros: Micros): string {
  const millis = Math.floor(micros / 1000);
  const iso = new Date(millis).toISOString(); // 2024-12-15T01:41:59.195Z
  const fraction = String(micros - millis * 1000).padStart(3, '0');
  return `${iso.slice(0, 23)}${fraction}`;
}

/** The inverse of formatTimestamp, to the microsecond (Date.parse alone would drop the last three digits). */
export function parseTimestamp(timestamp: string): Micros {
  return Date.parse(`${timestamp.slice(0, 23)}Z`) * 1000 + Number(timestamp.slice(23, 26));
}

export function formatNullableTimestamp(micros: Micros | null): string | null {
  return micros === null ? null : formatTimestamp(micros);
}

/**
 * Reads a POSIX timestamp as the interface allows it: float seconds (`1700000000.5`)
 * or integer nanoseconds (`1700000000500000000`). An integer is taken as nanoseconds
 * when it has more than 12 digits (later than the year 33658 in seconds), otherwise as
 * seconds, so `1700000000` means seconds, as a person typing it means.
 * Returns nanoseconds, or null when the text is not a timestamp.
 */
export function parsePosixTimestamp(text: string): bigint | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const value = BigInt(trimmed);
    return trimmed.length > 12 ? value : value * 1_000_000_000n;
  }
  if (/^\d*\.\d+$|^\d+\.\d*$/.test(trimmed)) {
    const [whole = '0', fraction = ''] = trimmed.split('.');
    const nanosFraction = (fraction + '000000000').slice(0, 9);
    return BigInt(whole || '0') * 1_000_000_000n + BigInt(nanosFraction);
  }
  return null;
}
