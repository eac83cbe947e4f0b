/** How values read to a person: local times, durations and dollars without float noise. */

/** A wire timestamp (UTC, `2024-12-15T01:41:59.195000`) as local time, `2024-12-15 02:41:59`. */
export function formatWireTime(timestamp: string | null | undefined): string {
  if (!timestamp) return '-';
  return formatLocal(new Date(`${timestamp.slice(0, 23)}Z`), false);
}

/** A log line's time (nanoseconds since the epoch, an integer string) as local time with milliseconds; the date only when it is not today. */
export function formatLogTime(nanoseconds: string, now = new Date()): string {
  const date = new Date(Number(BigInt(nanoseconds) / 1_000_000n));
  const full = formatLocal(date, true);
  return date.toDateString() === now.toDateString() ? full.slice(11) : full;
}

function formatLocal(date: Date, withMs: boolean): string {
  if (Number.isNaN(date.getTime())) return '-';
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return `${day} ${time}${withMs ? `.${pad(date.getMilliseconds(), 3)}` : ''}`;
}

/** $0.00, $1.50, $0.000123: cents at least, six decimals at most, no binary float tail. */
export function formatDollars(amount: number): string {
  const fixed = Math.abs(amount)
    .toFixed(6)
    .replace(/0{1,4}$/, '');
  return `${amount < 0 ? '-' : ''}$${fixed}`;
}

/** Compute time: 0.25s, 12.5s, 3h 2m 5s (whole seconds past a minute). */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(2))}s`;
  const whole = Math.round(seconds);
  const parts: [number, string][] = [
    [Math.floor(whole / 3600), 'h'],
    [Math.floor((whole % 3600) / 60), 'm'],
    [whole % 60, 's'],
  ];
  return parts
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount}${unit}`)
    .join(' ');
}

/** Seconds between two wire timestamps, or null when either is missing. */
export function wireSpanSeconds(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  return (Date.parse(`${to.slice(0, 23)}Z`) - Date.parse(`${from.slice(0, 23)}Z`)) / 1000;
}
