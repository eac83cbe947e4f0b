import { pino } from 'pino';
import type { Config } from '../config.js';

export type Logger = pino.Logger;

/** Service logs: JSON lines on stderr, so stdout stays for what a person reads. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'sluice' } }, pino.destination(2));
}
