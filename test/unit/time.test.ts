import { describe, expect, it } from 'vitest';
import { formatTimestamp, parsePosixTimestamp, parseTimestamp } from '../../shared/domain/time.js';

describe('timestamps on the wire', () => {
  it('prints UTC with six fractional digits and no zone suffix', () => {
    expect(formatTimestamp(Date.UTC(2024, 11, 15, 1, 41, 59, 195) * 1000)).toBe('2024-12-15T01:41:59.195000');
  });

  it('keeps microseconds exactly', () => {
    expect(formatTimestamp(1_734_226_919_195_007)).toBe('2024-12-15T01:41:59.195007');
    expect(formatTimestamp(1_734_226_919_000_000)).toBe('2024-12-15T01:41:59.000000');
  });

  it('reads back to the same microsecond', () => {
    for (const micros of [1_734_226_919_195_007, 1_734_226_919_000_000, 1_734_226_919_999_999]) expect(parseTimestamp(formatTimestamp(micros))).toBe(micros);
  });
});

describe('POSIX timestamps in queries', () => {
  it('reads float seconds', () => {
    expect(parsePosixTimestamp('1700000000.5')).toBe(1_700_000_000_500_000_000n);
    expect(parsePosixTimestamp('1700000000.123456789')).toBe(1_700_000_000_123_456_789n);
  });

  it('reads a long integer as nanoseconds and a short one as seconds', () => {
    expect(parsePosixTimestamp('1700000000123456789')).toBe(1_700_000_000_123_456_789n);
    expect(parsePosixTimestamp('1700000000')).toBe(1_700_000_000_000_000_000n);
  });

  it('refuses what is not a timestamp', () => {
    for (const text of ['', 'yesterday', '-5', '1e9', '12:00']) expect(parsePosixTimestamp(text)).toBeNull();
  });
});
