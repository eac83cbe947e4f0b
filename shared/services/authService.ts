import { hashApiKey } from '../domain/apiKey.js';
import { unauthorized } from '../domain/errors.js';
import type { Store } from '../ports/store.js';
import { ExpiringCache } from './expiringCache.js';
import type { Principal } from './principal.js';

/**
 * How long a key's lookup is remembered, found or not: a key revoked or created by another
 * process (another Lambda, the CLI) is seen within this; in this process, at once.
 */
export const AUTH_CACHE_MS = 5_000;
const AUTH_CACHE_SIZE = 10_000;

export class AuthService {
  private readonly known = new ExpiringCache<Principal>(AUTH_CACHE_MS, AUTH_CACHE_SIZE);
  /** Kept apart, so a flood of made-up keys cannot push the real ones out. */
  private readonly unknown = new ExpiringCache<true>(AUTH_CACHE_MS, AUTH_CACHE_SIZE);

  constructor(private readonly store: Store) {}

  /** The organization behind an X-API-Key value; 401 for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Principal> {
    if (!apiKey) throw unauthorized();
    const hash = hashApiKey(apiKey);
    const cached = this.known.get(hash);
    if (cached) return cached;
    if (this.unknown.get(hash)) throw unauthorized();
    const principal = await this.lookUp(hash);
    if (!principal) {
      this.unknown.set(hash, true);
      throw unauthorized();
    }
    this.known.set(hash, principal);
    return principal;
  }

  /** Forgets every lookup at once (a key created or revoked in this process). */
  forgetKeys(): void {
    this.known.clear();
    this.unknown.clear();
  }

  private async lookUp(hash: string): Promise<Principal | null> {
    const key = await this.store.apiKeys.getByHash(hash);
    if (!key || key.revokedAt !== null) return null;
    const organization = await this.store.organizations.getById(key.organizationId);
    return organization ? { organizationId: organization.id, organizationName: organization.name, keyId: key.id } : null;
  }
}
