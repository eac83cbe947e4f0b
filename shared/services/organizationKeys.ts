import type { ApiKey } from '../domain/apiKey.js';
import { newApiKey } from '../domain/apiKey.js';
import { conflict, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/** Enough for rotations and one key per machine; past it, unused keys are revoked first. */
export const MAX_ACTIVE_KEYS = 50;

/**
 * An organization's own API keys, through the API: it lists, creates and revokes only its own,
 * and can never revoke its last active key (the operator's `sluice keys` is KeyService).
 */
export class OrganizationKeys {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Called after a key is created or revoked, so this process accepts or refuses it at once. */
    private readonly onKeysChanged: () => void,
  ) {}

  list(principal: Principal): Promise<ApiKey[]> {
    return this.store.apiKeys.list(principal.organizationId);
  }

  /** A new key; its secret is in the answer only. */
  async create(principal: Principal): Promise<{ key: ApiKey; secret: string }> {
    const active = (await this.list(principal)).filter((key) => key.revokedAt === null).length;
    if (active >= MAX_ACTIVE_KEYS) {
      throw conflict(`This organization already has ${MAX_ACTIVE_KEYS} active API keys, the most it may hold: revoke one it no longer uses first.`);
    }
    const created = newApiKey(newId(), principal.organizationId, this.clock.now());
    await this.store.apiKeys.create(created.key);
    this.onKeysChanged();
    return created;
  }

  /** Revokes one of the organization's keys (the calling one too); another organization's is 404, as an unknown one. */
  async revoke(principal: Principal, keyId: string): Promise<ApiKey> {
    const key = (await this.list(principal)).find((candidate) => candidate.id === keyId);
    if (!key) throw notFound('API key not found.');
    if (key.revokedAt !== null) throw conflict(`API key ${key.id} is already revoked.`);
    const at = this.clock.now();
    const outcome = await this.store.apiKeys.revokeKeepingOne(key.id, principal.organizationId, at);
    this.onKeysChanged();
    if (outcome === 'last') {
      throw conflict(
        `API key ${key.id} is this organization's last active key: revoking it would lock the organization out. Create another key first (POST /v2/keys), then revoke this one.`,
      );
    }
    if (outcome === 'absent') throw conflict(`API key ${key.id} is already revoked.`);
    return { ...key, revokedAt: at };
  }
}
