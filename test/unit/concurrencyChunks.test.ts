import { describe, expect, it } from 'vitest';
import { concurrencyChunks, median } from '../../shared/domain/concurrencyChunks.js';
import { aJob } from '../support/fixtures.js';

const MINUTE = 60_000_000;

describe('historical concurrency', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('cuts the range into chunks, the last one shorter, counting jobs by creation time and estimating jobs × median ÷ length', () => {
    const ran = (createdAt: number, seconds: number) => aJob({ createdAt, startedAt: createdAt, completedAt: createdAt + seconds * 1e6, status: 'finished' });
    const jobs = [ran(0, 60), ran(10 * MINUTE, 120), ran(29 * MINUTE, 30), aJob({ createdAt: 31 * MINUTE, status: 'cancelled' }), ran(45 * MINUTE, 90)];
    const chunks = concurrencyChunks(jobs, 0, 50 * MINUTE, 30 * MINUTE);
    expect(chunks.map((chunk) => [chunk.start / MINUTE, chunk.end / MINUTE, chunk.jobs, chunk.medianProcessingSeconds])).toEqual([
      [0, 30, 3, 60],
      [30, 50, 2, 90],
    ]);
    expect(chunks[0]?.averageConcurrency).toBeCloseTo((3 * 60) / 1800, 12);
    expect(chunks[1]?.averageConcurrency).toBeCloseTo((2 * 90) / 1200, 12);
  });
});
