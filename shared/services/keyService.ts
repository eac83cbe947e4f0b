import type { ApiKey } from '../domain/apiKey.js';
import { generateApiKey, hashApiKey, newApiKey } from '../domain/apiKey.js';
import { badRequest, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { generateWebhookSecret } from '../domain/webhookSignature.js';
import type { Organization } from '../domain/organization.js';
import { ORGANIZATION_NAME_PATTERN } from '../domain/organization.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';

export interface CreatedKey {
  organization: Organization;
  key: ApiKey;
  /** The key itself: shown once, never stored. */
  secret: string;
}

export interface ListedKey extends ApiKey {
  organizationName: string;
}

/** Organizations and their API keys: an operator's concern, reached through the CLI. */
export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Called after a key is created or revoked, so this process accepts or refuses it at once. */
    private readonly onKeysChanged: () => void = () => undefined,
  ) {}

  async ensureOrganization(name: string): Promise<Organization> {
    if (!ORGANIZATION_NAME_PATTERN.test(name)) {
      throw badRequest(`Organization name "${name}" is invalid: use lowercase letters, digits, "_" or "-" (at most 63).`);
    }
    return this.store.organizations.createIfAbsent({ id: newId(), name, createdAt: this.clock.now(), webhookSecret: generateWebhookSecret() });
  }

  /** Creates the organization if new, then a key for it (`secret` when given, else a fresh one). */
  async createKey(organizationName: string, secret: string = generateApiKey()): Promise<CreatedKey> {
    const organization = await this.ensureOrganization(organizationName);
    const { key } = newApiKey(newId(), organization.id, this.clock.now(), secret);
    await this.store.apiKeys.create(key);
    this.onKeysChanged();
    return { organization, key, secret };
  }

  async listKeys(organizationName?: string): Promise<ListedKey[]> {
    const organization = organizationName === undefined ? undefined : await this.requireOrganization(organizationName);
    const keys = await this.store.apiKeys.list(organization?.id);
    const names = new Map<string, string>();
    for (const key of keys) {
      if (!names.has(key.organizationId)) {
        names.set(key.organizationId, (await this.store.organizations.getById(key.organizationId))?.name ?? '?');
      }
    }
    return keys.map((key) => ({ ...key, organizationName: names.get(key.organizationId) ?? '?' }));
  }

  /** Revokes by key id or by a unique id prefix (as `sluice keys list` prints them). */
  async revokeKey(idOrPrefix: string): Promise<ApiKey> {
    const matches = (await this.store.apiKeys.list()).filter((key) => key.id.startsWith(idOrPrefix) && key.revokedAt === null);
    if (matches.length === 0) throw notFound(`No active API key has an id starting with "${idOrPrefix}".`);
    if (matches.length > 1) throw badRequest(`"${idOrPrefix}" matches ${matches.length} keys; give more of the id.`);
    const key = matches[0] as ApiKey;
    const at = this.clock.now();
    await this.store.apiKeys.revoke(key.id, at);
    this.onKeysChanged();
    return { ...key, revokedAt: at };
  }

  /** Whether a key with this secret exists, and whether it was revoked (the bootstrap key's check). */
  async keyState(secret: string): Promise<'active' | 'revoked' | 'unknown'> {
    const key = await this.store.apiKeys.getByHash(hashApiKey(secret));
    if (key === null) return 'unknown';
    return key.revokedAt === null ? 'active' : 'revoked';
  }

  private async requireOrganization(name: string): Promise<Organization> {
    const organization = await this.store.organizations.getByName(name);
    if (!organization) throw notFound(`Organization "${name}" does not exist.`);
    return organization;
  }
}
