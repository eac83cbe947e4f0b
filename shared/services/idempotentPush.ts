import { ServiceError, unprocessable } from '../domain/errors.js';
import { IDEMPOTENCY_WINDOW_US, requestFingerprint } from '../domain/idempotency.js';
import { newId } from '../domain/ids.js';
import type { JobRecord, PushSource } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { JobPushes, PushBody } from './jobPushes.js';
import type { Principal } from './principal.js';

/** A key whose job has not appeared after this long belongs to a push that died midway: it is taken over. */
const ABANDONED_AFTER_US = 60 * 1_000_000;

/**
 * Pushes with an Idempotency-Key (docs/api.md): the same key from the same organization within
 * 24 hours answers the job the first push made, even after a restart (the key is stored);
 * the same key with a different request is refused with 422, as the IETF draft and Stripe
 * refuse it; a retry racing the first push before its job exists gets 409.
 */
export class IdempotentPushes {
  constructor(
    private readonly store: Store,
    private readonly jobs: JobPushes,
    private readonly clock: Clock,
  ) {}

  async push(principal: Principal, body: PushBody, source: PushSource, key: string | undefined): Promise<{ job: JobRecord; version: VersionRecord }> {
    if (key === undefined) return this.jobs.push(principal, body, source);
    const now = this.clock.now();
    const claim = {
      organizationId: principal.organizationId,
      key,
      requestHash: requestFingerprint({ body, source }),
      jobId: newId(),
      createdAt: now,
      expiresAt: now + IDEMPOTENCY_WINDOW_US,
    };
    // Claimed before the job is made, so two pushes racing with one key make one job.
    const held = await this.store.idempotencyKeys.claim(claim);
    if (held.jobId === claim.jobId) {
      try {
        return await this.jobs.push(principal, body, source, null, claim.jobId);
      } catch (error) {
        // No job was made (a bad input, say): the key is free for the corrected request. One
        // made before the push failed (its message refused) keeps the key: a retry answers it.
        if ((await this.store.jobs.get(claim.jobId).catch(() => undefined)) === null)
          await this.store.idempotencyKeys.release(claim.organizationId, key, claim.jobId);
        throw error;
      }
    }
    if (held.requestHash !== claim.requestHash) {
      throw unprocessable(
        `Idempotency-Key "${key}" was used by an earlier push with a different request (job ${held.jobId}); a key names one request for 24 hours: use a new key for a new request.`,
      );
    }
    const job = await this.store.jobs.get(held.jobId);
    const version = job && (await this.store.versions.get(job.versionId));
    if (job && version) {
      await this.jobs.sendAgainIfUnstarted(job, version);
      return { job, version };
    }
    if (now - held.createdAt < ABANDONED_AFTER_US) {
      throw new ServiceError('conflict', `A push with Idempotency-Key "${key}" is still being made: retry in a moment.`);
    }
    await this.store.idempotencyKeys.release(held.organizationId, key, held.jobId);
    return this.push(principal, body, source, key);
  }
}
