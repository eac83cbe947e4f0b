import type { OrganizationLimits } from './organizationLimits.js';
import type { Micros } from './time.js';

/** An account. Its name is the `owner_name` of the functions it deploys. */
export interface Organization {
  id: string;
  name: string;
  createdAt: Micros;
  /** Signs its webhook deliveries (Standard Webhooks, `whsec_...`); made on first use. */
  webhookSecret: string | null;
  /** Set by the operator (organizationLimits.ts); absent until first set: the defaults apply. */
  limits?: OrganizationLimits;
  /** The month (`YYYY-MM`) whose budget.warning was sent; absent until the first. */
  budgetWarnedMonth?: string;
}

/** Organization names appear in URLs (`/v2/functions/{owner_name}/...`), so they stay URL-safe. */
export const ORGANIZATION_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
