import { hashApiKey } from '../domain/apiKey.js';
import { unauthorized } from '../domain/errors.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/** How long a key's organization is remembered; a key revoked elsewhere stops working within this. */
export const AUTH_CACHE_MS = 5_000;
const AUTH_CACHE_SIZE = 10_000;

export class AuthService {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly store: Store) {}

  /** The organization behind an X-API-Key value; 401 for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Principal> {
    if (!apiKey) throw unauthorized();
    const hash = hashApiKey(apiKey);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.principal;
    const key = await this.store.apiKeys.getByHash(hash);
    if (!key || key.revokedAt !== null) throw unauthorized();
    const organization = await this.store.organizations.getById(key.organizationId);
    if (!organization) throw unauthorized();
    const principal = { organizationId: organization.id, organizationName: organization.name };
    if (this.cache.size >= AUTH_CACHE_SIZE) this.cache.clear();
    this.cache.set(hash, { principal, until: Date.now() + AUTH_CACHE_MS });
    return principal;
  }

  /** Forgets remembered keys at once (after a revocation in this process). */
  forgetKeys(): void {
    this.cache.clear();
  }
}
