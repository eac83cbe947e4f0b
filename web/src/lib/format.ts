/** The API's timestamps are UTC without a zone (`2024-12-15T01:41:59.195000`). */
export const parseTime = (text: string | null | undefined): Date | null => (text ? new Date(`${text.replace(/(\.\d{3})\d*$/, '$1')}Z`) : null);

export function formatTime(text: string | null | undefined): string {
  const date = parseTime(text);
  return date ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '—';
}

export function formatAgo(text: string | null | undefined, now = Date.now()): string {
  const date = parseTime(text);
  if (!date) return '—';
  const seconds = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

export function formatSeconds(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Between two timestamps (or until now while it runs). */
export function formatDuration(from: string | null | undefined, to: string | null | undefined): string {
  const start = parseTime(from);
  if (!start) return '—';
  const end = parseTime(to) ?? new Date();
  return formatSeconds((end.getTime() - start.getTime()) / 1000);
}

export const formatDollars = (dollars: number) => (dollars === 0 ? '$0' : dollars < 0.01 ? `$${dollars.toFixed(5)}` : `$${dollars.toFixed(2)}`);

/** A log line's timestamp: nanoseconds since the epoch, as an integer string. */
export const formatLogTime = (nanoseconds: string) => new Date(Number(BigInt(nanoseconds) / 1_000_000n)).toISOString().slice(11, 23);
