import { InvalidArgumentError } from 'commander';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A command-line duration, in milliseconds: `90s`, `5m`, `1.5h`, `7d`, or a bare number of minutes. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(text.trim());
  const amount = match ? Number(match[1]) : NaN;
  if (!match || !(amount > 0)) throw new InvalidArgumentError(`"${text}" is not a duration: use e.g. 90s, 20m or 2h (a bare number is minutes).`);
  return amount * UNIT_MS[(match[2] || 'm') as keyof typeof UNIT_MS];
}

/** 45s, 12m, 1h 5m: the coarsest two units that say it. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  return minutes % 60 === 0 ? `${minutes / 60}h` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
