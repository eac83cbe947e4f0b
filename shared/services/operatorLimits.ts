import { notFound, ValidationError } from '../domain/errors.js';
import type { Organization } from '../domain/organization.js';
import type { OrganizationLimitsChange } from '../domain/organizationLimits.js';
import { applyLimitsChange, limitsOf, organizationLimitsChangeSchema } from '../domain/organizationLimits.js';
import type { Store } from '../ports/store.js';

/**
 * The operator's side of organizations' limits (the operator API and `sluice orgs`): never
 * reachable with an organization's own key.
 */
export class OperatorLimits {
  constructor(
    private readonly store: Store,
    /** Told of each change, so this process applies it at once (Budgets.remember). */
    private readonly onChanged: (organization: Organization) => void = () => undefined,
  ) {}

  list(): Promise<Organization[]> {
    return this.store.organizations.list();
  }

  async get(name: string): Promise<Organization> {
    const organization = await this.store.organizations.getByName(name);
    if (!organization) throw notFound(`Organization "${name}" does not exist; \`sluice keys create --org ${name}\` creates it.`);
    return organization;
  }

  /** Sets the fields given; the others keep their value. Refused (422, by field) unless every field is within its bounds. */
  async change(name: string, change: OrganizationLimitsChange): Promise<Organization> {
    const parsed = organizationLimitsChangeSchema.safeParse(change);
    if (!parsed.success) {
      throw new ValidationError(parsed.error.issues.map((issue) => ({ loc: ['body', ...issue.path.map(String)], msg: issue.message, type: issue.code })));
    }
    const organization = await this.get(name);
    const updated = await this.store.organizations.setLimits(organization.id, applyLimitsChange(limitsOf(organization), parsed.data));
    if (!updated) throw notFound(`Organization "${name}" does not exist.`);
    this.onChanged(updated);
    return updated;
  }
}
