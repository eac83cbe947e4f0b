import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../cli/duration.js';

describe('command-line durations', () => {
  it('reads seconds, minutes, hours and days, and a bare number as minutes', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('7d')).toBe(604_800_000);
    expect(parseDuration('20m')).toBe(1_200_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('60')).toBe(3_600_000);
  });

  it('refuses zero, negatives and words, saying what a duration looks like', () => {
    for (const text of ['0', '-5m', 'soon', '5 min', '']) expect(() => parseDuration(text), text).toThrow(/is not a duration: use e\.g\. 90s, 20m or 2h/);
  });

  it('prints the coarsest units that say it', () => {
    expect([formatDuration(45_000), formatDuration(720_000), formatDuration(3_600_000), formatDuration(3_900_000)]).toEqual(['45s', '12m', '1h', '1h 5m']);
  });
});
