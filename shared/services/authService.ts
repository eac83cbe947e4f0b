import { hashApiKey } from '../domain/apiKey.js';
import { unauthorized } from '../domain/errors.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

export class AuthService {
  constructor(private readonly store: Store) {}

  /** The organization behind an X-API-Key value; 401 for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Principal> {
    if (!apiKey) throw unauthorized();
    const key = await this.store.apiKeys.getByHash(hashApiKey(apiKey));
    if (!key || key.revokedAt !== null) throw unauthorized();
    const organization = await this.store.organizations.getById(key.organizationId);
    if (!organization) throw unauthorized();
    return { organizationId: organization.id, organizationName: organization.name };
  }
}
