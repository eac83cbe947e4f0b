import type { Micros } from '../domain/time.js';

export interface Clock {
  /** Microseconds since the epoch. */
  now(): Micros;
  /** Nanoseconds since the epoch, strictly increasing across calls in this process. */
  nowNs(): bigint;
}
