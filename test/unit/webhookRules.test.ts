import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress } from '../../shared/domain/networkAddress.js';
import { deliveryAhead, holdSeconds } from '../../shared/domain/deliveryOrder.js';
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from '../../shared/domain/webhookDelivery.js';
import { aDelivery } from '../support/fixtures.js';
import { signWebhook } from '../../shared/domain/webhookSignature.js';
import { resendWaitSeconds } from '../../shared/domain/resendLimit.js';

describe('webhook signatures', () => {
  it('match the Standard Webhooks specification’s example', () => {
    const signature = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

describe('webhook retries', () => {
  it('wait exponentially longer: base, 2 x base, 4 x base, ... for ten attempts in all', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
    expect(Array.from({ length: 9 }, (_, i) => retryDelayMs(i + 1, 1000))).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000]);
  });
});

describe('webhook delivery order (one job, one URL)', () => {
  const URL = 'https://hooks.example.com/a';
  const start = aDelivery({ id: 'start', url: URL, sequence: 1, eventType: 'job.start' });
  const output = aDelivery({ id: 'output', url: URL, sequence: 2, eventType: 'job.new_output' });
  const complete = aDelivery({ id: 'complete', url: URL, sequence: 3 });
  const elsewhere = aDelivery({ id: 'elsewhere', url: 'https://other.example.com/', sequence: 0 });
  const all = [complete, output, start, elsewhere];

  it('holds a delivery behind the earliest pending one of the same job to the same URL', () => {
    expect(deliveryAhead(complete, all)?.id).toBe('start');
    expect(deliveryAhead(output, all)?.id).toBe('start');
    expect(deliveryAhead(start, all)).toBeNull();
  });

  it('lets it go once those ahead are delivered or failed; other URLs never hold it', () => {
    const ended = [{ ...start, state: 'delivered' as const }, { ...output, state: 'failed' as const }, complete, elsewhere];
    expect(deliveryAhead(complete, ended)).toBeNull();
    expect(deliveryAhead(elsewhere, all)).toBeNull();
  });

  it('orders equal sequences by id', () => {
    const twin = aDelivery({ id: 'b', url: URL, sequence: 5 });
    const first = aDelivery({ id: 'a', url: URL, sequence: 5 });
    expect(deliveryAhead(twin, [twin, first])?.id).toBe('a');
    expect(deliveryAhead(first, [twin, first])).toBeNull();
  });

  it('waits until just after the one ahead is next due, between 1 s and a minute', () => {
    const now = 1_000_000_000;
    expect(holdSeconds({ ...start, nextAttemptAt: now + 4_000_000 }, now)).toBe(5);
    expect(holdSeconds({ ...start, nextAttemptAt: now + 3_600_000_000 }, now)).toBe(60);
    expect(holdSeconds({ ...start, nextAttemptAt: now }, now)).toBe(1);
  });

  it('looks again in a second while the one ahead is being attempted, and every 30 s once its run looks lost', () => {
    const now = 1_000_000_000;
    expect(holdSeconds({ ...start, nextAttemptAt: now - 5_000_000 }, now)).toBe(1);
    expect(holdSeconds({ ...start, nextAttemptAt: now - 120_000_000 }, now)).toBe(30);
  });
});

describe('webhook address policy', () => {
  it('tells loopback, private, link-local, unspecified and public addresses apart', () => {
    expect(
      [
        '127.0.0.1',
        '::1',
        '10.1.2.3',
        '172.20.0.1',
        '192.168.0.9',
        '100.64.0.1',
        'fd12::1',
        '169.254.169.254',
        'fe80::1',
        '0.0.0.0',
        '8.8.8.8',
        '2606:4700::1',
      ].map(classifyAddress),
    ).toEqual(['loopback', 'loopback', 'private', 'private', 'private', 'private', 'private', 'link-local', 'link-local', 'unspecified', 'public', 'public']);
  });

  it('reads IPv4-mapped IPv6 addresses as the IPv4 address they carry', () => {
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('link-local');
  });

  it('allows public addresses always, restricted kinds only when configured, unspecified never', () => {
    expect(isAllowedAddress('8.8.8.8', [])).toBe(true);
    expect(isAllowedAddress('127.0.0.1', [])).toBe(false);
    expect(isAllowedAddress('127.0.0.1', ['loopback'])).toBe(true);
    expect(isAllowedAddress('169.254.169.254', ['loopback', 'private'])).toBe(false);
    expect(isAllowedAddress('0.0.0.0', ['loopback', 'private', 'link-local'])).toBe(false);
  });
});

describe('webhook resend limit', () => {
  const NOW = 1_732_000_100_000_000;
  const resentAgo = (seconds: number) => [aDelivery({ resentAt: NOW - seconds * 1_000_000 }), aDelivery({ resentAt: NOW - seconds * 1_000_000 })];

  it('allows 3 resends of a job within a minute; a job’s own events do not count', () => {
    expect(resendWaitSeconds([aDelivery(), aDelivery(), aDelivery(), ...resentAgo(5), ...resentAgo(2)], NOW)).toBe(0);
  });

  it('then asks to wait until the oldest of the last 3 leaves the minute', () => {
    expect(resendWaitSeconds([...resentAgo(90), ...resentAgo(45), ...resentAgo(10), ...resentAgo(1)], NOW)).toBe(15);
    expect(resendWaitSeconds([...resentAgo(61), ...resentAgo(10), ...resentAgo(1)], NOW)).toBe(0);
  });
});
