import { describe, expect, it } from 'vitest';
import { FairBatchOrder, type Candidate } from '../../../shared/adapters/aws/fairBatchOrder.js';

interface Job extends Candidate {
  id: string;
}

const job = (id: string, organizationId: string, priority = 0, pushedAt = 0, redelivered = false): Job => ({
  id,
  organizationId,
  priority,
  pushedAt,
  redelivered,
});

/** Takes `count` jobs one at a time, each chosen among those left, as successive takes would. */
function takeAll(order: FairBatchOrder, jobs: Job[], count = jobs.length): string[] {
  const left = [...jobs];
  const taken: string[] = [];
  for (let i = 0; i < count; i++) {
    const next = order.next(left);
    if (!next) break;
    order.took(next);
    left.splice(left.indexOf(next), 1);
    taken.push(next.id);
  }
  return taken;
}

describe('the order a worker takes jobs in among a received batch', () => {
  it('takes an organization’s higher priority first, then its older job', () => {
    const jobs = [job('low', 'a', -5, 1), job('old', 'a', 0, 2), job('new', 'a', 0, 3), job('urgent', 'a', 7, 4)];
    expect(takeAll(new FairBatchOrder(), jobs)).toEqual(['urgent', 'old', 'new', 'low']);
  });

  it('serves a quiet organization’s job second, behind one of a noisy organization’s backlog, not after it', () => {
    const noisy = Array.from({ length: 8 }, (_, i) => job(`noisy-${i}`, 'noisy', 0, i));
    const jobs = [...noisy, job('quiet-0', 'quiet', 0, 100), job('quiet-1', 'quiet', 0, 101)];
    expect(takeAll(new FairBatchOrder(), jobs, 4)).toEqual(['noisy-0', 'quiet-0', 'noisy-1', 'quiet-1']);
  });

  it('shares takes in proportion to the organizations’ weights', () => {
    const order = new FairBatchOrder((organizationId) => (organizationId === 'heavy' ? 2 : 1));
    const jobs = Array.from({ length: 30 }, (_, i) => [job(`heavy-${i}`, 'heavy', 0, i), job(`light-${i}`, 'light', 0, i)]).flat();
    const taken = takeAll(order, jobs, 30);
    expect(taken.filter((id) => id.startsWith('heavy'))).toHaveLength(20);
    expect(taken.filter((id) => id.startsWith('light'))).toHaveLength(10);
  });

  it('puts fair share before priority: another organization’s job goes before a second urgent one', () => {
    const jobs = [job('a-urgent-1', 'a', 10, 1), job('a-urgent-2', 'a', 10, 2), job('b-low', 'b', -10, 3)];
    expect(takeAll(new FairBatchOrder(), jobs)).toEqual(['a-urgent-1', 'b-low', 'a-urgent-2']);
  });

  it('recovers a redelivered (abandoned) job before starting new ones', () => {
    const jobs = [job('new', 'a', 10, 1), job('abandoned', 'b', -10, 5, true)];
    expect(takeAll(new FairBatchOrder(), jobs, 1)).toEqual(['abandoned']);
  });

  it('gives an organization back after a while its share from then on, not a burst for the time it was away', () => {
    const order = new FairBatchOrder();
    takeAll(
      order,
      Array.from({ length: 6 }, (_, i) => job(`a-${i}`, 'a', 0, i)),
    );
    const jobs = [
      ...Array.from({ length: 4 }, (_, i) => job(`a-${i + 6}`, 'a', 0, i + 6)),
      ...Array.from({ length: 4 }, (_, i) => job(`b-${i}`, 'b', 0, 10 + i)),
    ];
    expect(takeAll(order, jobs, 4).map((id) => id[0])).toEqual(['b', 'a', 'b', 'a']);
  });

  it('counts a weight of zero or not a number as the default 1', () => {
    const order = new FairBatchOrder((organizationId) => (organizationId === 'a' ? 0 : Number.NaN));
    const jobs = [job('a-0', 'a', 0, 0), job('a-1', 'a', 0, 1), job('b-0', 'b', 0, 2), job('b-1', 'b', 0, 3)];
    expect(takeAll(order, jobs)).toEqual(['a-0', 'b-0', 'a-1', 'b-1']);
  });
});
