import type { ValidationIssue } from '../domain/errors.js';
import { ValidationError } from '../domain/errors.js';
import type { RestrictedKind } from '../domain/networkAddress.js';
import { classifyAddress, isAllowedAddress } from '../domain/networkAddress.js';
import type { Webhook } from '../domain/webhook.js';
import type { HostResolver } from '../ports/hostResolver.js';

/**
 * Which webhook URLs the service will call. Every address a URL's host resolves to must be
 * public, or of a kind the operator allows (the local mode allows loopback, so receivers on
 * the same machine work). Link-local addresses (cloud metadata) and private ranges are refused
 * otherwise: the service must not be a way into its own network.
 */
export class WebhookUrlPolicy {
  constructor(
    private readonly resolve: HostResolver,
    readonly allowed: readonly RestrictedKind[],
  ) {}

  /** Why this URL is refused, or null when it may be called. */
  async refusal(url: string): Promise<string | null> {
    const host = new URL(url).hostname;
    let addresses: string[];
    try {
      addresses = await this.resolve(host);
    } catch {
      return `the host ${host} could not be resolved`;
    }
    const refused = addresses.find((address) => !isAllowedAddress(address, this.allowed));
    return refused === undefined ? null : `${host} resolves to ${refused}, a ${classifyAddress(refused)} address this service does not call`;
  }

  /** 422 naming each refused URL at `loc` + its index. */
  async assertAllowed(webhooks: Webhook[], loc: (string | number)[]): Promise<void> {
    const issues: ValidationIssue[] = [];
    await Promise.all(
      webhooks.map(async (webhook, index) => {
        const why = await this.refusal(webhook.url);
        if (why) issues.push({ loc: [...loc, index, 'url'], msg: `Webhook URL refused: ${why}`, type: 'value_error' });
      }),
    );
    if (issues.length > 0) throw new ValidationError(issues);
  }
}
