import { notFound } from '../domain/errors.js';
import { generateWebhookSecret } from '../domain/webhookSignature.js';
import type { Store } from '../ports/store.js';

/** Each organization's webhook signing secret: readable and rotatable by the organization. */
export class WebhookSecrets {
  constructor(private readonly store: Store) {}

  async secretOf(organizationId: string): Promise<string> {
    const organization = await this.store.organizations.getById(organizationId);
    if (!organization) throw notFound('Organization not found.');
    if (organization.webhookSecret) return organization.webhookSecret;
    // Organizations made before secrets existed get theirs on first use.
    return this.rotate(organizationId);
  }

  async rotate(organizationId: string): Promise<string> {
    const secret = generateWebhookSecret();
    await this.store.organizations.setWebhookSecret(organizationId, secret);
    return secret;
  }
}
