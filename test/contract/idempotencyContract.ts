import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../shared/domain/idempotency.js';
import { IDEMPOTENCY_WINDOW_US } from '../../shared/domain/idempotency.js';
import type { CurrentStore } from './storeContract.js';

const T0 = 1_700_000_000_000_000;

const aClaim = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  organizationId: 'org-a',
  key: 'order-42',
  requestHash: 'hash-1',
  jobId: 'job-1',
  createdAt: T0,
  expiresAt: T0 + IDEMPOTENCY_WINDOW_US,
  ...overrides,
});

export function describeIdempotencyContract(store: CurrentStore): void {
  describe('idempotency keys', () => {
    it('claim stores a new key and returns it', async () => {
      const claim = aClaim();
      expect(await store().idempotencyKeys.claim(claim)).toEqual(claim);
    });

    it('a second claim of the same key within its window returns the first, which keeps the key', async () => {
      const first = aClaim();
      await store().idempotencyKeys.claim(first);
      const second = aClaim({ jobId: 'job-2', requestHash: 'hash-2', createdAt: T0 + 1000, expiresAt: T0 + 1000 + IDEMPOTENCY_WINDOW_US });
      expect(await store().idempotencyKeys.claim(second)).toEqual(first);
      expect(await store().idempotencyKeys.claim(aClaim({ jobId: 'job-3', createdAt: T0 + 2000 }))).toEqual(first);
    });

    it('keys are per organization: the same key in another organization is its own', async () => {
      await store().idempotencyKeys.claim(aClaim());
      const other = aClaim({ organizationId: 'org-b', jobId: 'job-b' });
      expect(await store().idempotencyKeys.claim(other)).toEqual(other);
    });

    it('an expired key is claimed anew', async () => {
      await store().idempotencyKeys.claim(aClaim());
      const later = aClaim({ jobId: 'job-later', createdAt: T0 + IDEMPOTENCY_WINDOW_US, expiresAt: T0 + 2 * IDEMPOTENCY_WINDOW_US });
      expect(await store().idempotencyKeys.claim(later)).toEqual(later);
    });

    it('release frees a key only while it names the job given', async () => {
      await store().idempotencyKeys.claim(aClaim());
      await store().idempotencyKeys.release('org-a', 'order-42', 'someone-else');
      expect((await store().idempotencyKeys.claim(aClaim({ jobId: 'job-2' }))).jobId).toBe('job-1');
      await store().idempotencyKeys.release('org-a', 'order-42', 'job-1');
      expect((await store().idempotencyKeys.claim(aClaim({ jobId: 'job-2' }))).jobId).toBe('job-2');
    });

    it('of claims racing for a key, exactly one wins and all see the winner', async () => {
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((job) => store().idempotencyKeys.claim(aClaim({ jobId: job }))));
      expect(new Set(claims.map((claim) => claim.jobId)).size).toBe(1);
    });
  });
}
