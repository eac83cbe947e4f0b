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

    it('getByName and getById return null for an unknown organization', async () => {
      await store().organizations.createIfAbsent(anOrganization());
      expect(await store().organizations.getByName('nobody')).toBeNull();
      expect(await store().organizations.getById('no-such-id')).toBeNull();
    });
  });
}
