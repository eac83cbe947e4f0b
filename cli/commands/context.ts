import { InvalidArgumentError } from 'commander';
import type { ClientSettings } from '../client.js';
import type { Output } from '../output/output.js';

/** What every command gets: the service to talk to, and where to print. */
export interface CommandContext {
  settings(): Promise<ClientSettings>;
  output(options: { json?: boolean }): Output;
}

/** A whole number (0 or more), for --limit and --offset. */
export function wholeNumber(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`"${text}" is not a whole number.`);
  return value;
}
