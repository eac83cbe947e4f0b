import { describe, expect, it } from 'vitest';
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

    it('getByName and getById return null for an unknown organization', async () => {
      await store().organizations.createIfAbsent(anOrganization());
      expect(await store().organizations.getByName('nobody')).toBeNull();
      expect(await store().organizations.getById('no-such-id')).toBeNull();
    });
  });
}
