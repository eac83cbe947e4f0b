import { describe, expect, it } from 'vitest';
import type { Organization } from '../../shared/domain/organization.js';
import { DEFAULT_ORGANIZATION_LIMITS, limitsOf } from '../../shared/domain/organizationLimits.js';
import { anOrganization } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

export function describeOrganizationContract(store: CurrentStore): void {
  describe('organizations', () => {
    it('createIfAbsent stores a new organization and returns it', async () => {
      const organization = anOrganization();
      expect(await store().organizations.createIfAbsent(organization)).toEqual(organization);
    });

    it('getByName and getById find a created organization', async () => {
      const organization = anOrganization();
      await store().organizations.createIfAbsent(organization);
      expect(await store().organizations.getByName(organization.name)).toEqual(organization);
      expect(await store().organizations.getById(organization.id)).toEqual(organization);
    });

    it('createIfAbsent returns the existing organization, same id, when the name is taken', async () => {
      const first = anOrganization({ name: 'acme' });
      await store().organizations.createIfAbsent(first);
      const second = anOrganization({ name: 'acme', createdAt: first.createdAt + 5 });
      expect(await store().organizations.createIfAbsent(second)).toEqual(first);
      expect(await store().organizations.getById(second.id)).toBeNull();
    });

    it('an organization created without a webhook secret reads back with a null one', async () => {
      const organization = anOrganization({ webhookSecret: null });
      await store().organizations.createIfAbsent(organization);
      expect((await store().organizations.getByName(organization.name))?.webhookSecret).toBeNull();
      expect((await store().organizations.getById(organization.id))?.webhookSecret).toBeNull();
    });

    it('createIfAbsent stores a webhook secret given at creation', async () => {
      const organization = anOrganization({ webhookSecret: 'whsec_created' });
      expect(await store().organizations.createIfAbsent(organization)).toEqual(organization);
      expect(await store().organizations.getById(organization.id)).toEqual(organization);
    });

    it('setWebhookSecret sets, then replaces, the secret that getById and getByName return', async () => {
      const organization = anOrganization();
      await store().organizations.createIfAbsent(organization);
      await store().organizations.setWebhookSecret(organization.id, 'whsec_first');
      expect(await store().organizations.getById(organization.id)).toEqual({ ...organization, webhookSecret: 'whsec_first' });
      await store().organizations.setWebhookSecret(organization.id, 'whsec_second');
      expect(await store().organizations.getById(organization.id)).toEqual({ ...organization, webhookSecret: 'whsec_second' });
      expect(await store().organizations.getByName(organization.name)).toEqual({ ...organization, webhookSecret: 'whsec_second' });
    });

    it("setWebhookSecret changes no other organization's secret", async () => {
      const [one, other] = [anOrganization(), anOrganization({ webhookSecret: 'whsec_other' })];
      await store().organizations.createIfAbsent(one);
      await store().organizations.createIfAbsent(other);
      await store().organizations.setWebhookSecret(one.id, 'whsec_one');
      expect(await store().organizations.getById(other.id)).toEqual(other);
    });

    it('setWebhookSecret of an unknown id creates nothing', async () => {
      await store().organizations.setWebhookSecret('no-such-id', 'whsec_nobody');
      expect(await store().organizations.getById('no-such-id')).toBeNull();
    });

    it('an organization whose limits were never set has none stored: the defaults apply', async () => {
      const organization = anOrganization();
      await store().organizations.createIfAbsent(organization);
      const read = await store().organizations.getByName(organization.name);
      expect(read?.limits).toBeUndefined();
      expect(limitsOf(read as Organization)).toEqual(DEFAULT_ORGANIZATION_LIMITS);
    });

    it('setLimits stores the limits, which getByName and list read back, and replaces them when set again', async () => {
      const organization = anOrganization();
      await store().organizations.createIfAbsent(organization);
      const limits = { weight: 3, monthlyBudgetDollars: 100.5, maxActiveJobs: 50, budgetWarningAt: 0.9 };
      expect(await store().organizations.setLimits(organization.id, limits)).toEqual({ ...organization, limits });
      expect(await store().organizations.getByName(organization.name)).toEqual({ ...organization, limits });
      const unlimited = { ...limits, monthlyBudgetDollars: null, maxActiveJobs: null };
      await store().organizations.setLimits(organization.id, unlimited);
      expect((await store().organizations.list()).find((listed) => listed.id === organization.id)).toEqual({ ...organization, limits: unlimited });
    });

    it("setLimits of an unknown id creates nothing and answers null; it changes no other organization's limits", async () => {
      const other = anOrganization();
      await store().organizations.createIfAbsent(other);
      expect(await store().organizations.setLimits('no-such-id', DEFAULT_ORGANIZATION_LIMITS)).toBeNull();
      expect(await store().organizations.getByName(other.name)).toEqual(other);
    });

    it('list answers every organization, by name', async () => {
      const names = ['list-c', 'list-a', 'list-b'];
      for (const name of names) await store().organizations.createIfAbsent(anOrganization({ name }));
      const listed = (await store().organizations.list()).map((organization) => organization.name).filter((name) => name.startsWith('list-'));
      expect(listed).toEqual(['list-a', 'list-b', 'list-c']);
    });

    it('markBudgetWarned answers true once a month, even for racing calls, and again for a new month', async () => {
      const organization = anOrganization();
      await store().organizations.createIfAbsent(organization);
      const raced = await Promise.all([1, 2, 3].map(() => store().organizations.markBudgetWarned(organization.id, '2026-11')));
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store().organizations.markBudgetWarned(organization.id, '2026-11')).toBe(false);
      expect(await store().organizations.markBudgetWarned(organization.id, '2026-12')).toBe(true);
      expect((await store().organizations.getByName(organization.name))?.budgetWarnedMonth).toBe('2026-12');
      expect(await store().organizations.markBudgetWarned('no-such-id', '2026-12')).toBe(false);
    });

    it('getByName and getById return null for an unknown organization', async () => {
      await store().organizations.createIfAbsent(anOrganization());
      expect(await store().organizations.getByName('nobody')).toBeNull();
      expect(await store().organizations.getById('no-such-id')).toBeNull();
    });
  });
}
