import { describe, expect, it } from 'vitest';
import { aBareFunction, aFullFunction } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

export function describeFunctionContract(store: CurrentStore): void {
  describe('functions', () => {
    it.each([
      ['every optional field null', aBareFunction()],
      ['every field filled in, arrays and webhooks included', aFullFunction()],
    ])('get and getById return the function as created, with %s', async (_, fn) => {
      expect(await store().functions.create(fn)).toBe(true);
      expect(await store().functions.get(fn.ownerName, fn.name)).toEqual(fn);
      expect(await store().functions.getById(fn.id)).toEqual(fn);
    });

    it('get and getById return null for an unknown function', async () => {
      await store().functions.create(aBareFunction({ ownerName: 'acme', name: 'resize' }));
      expect(await store().functions.get('acme', 'crop')).toBeNull();
      expect(await store().functions.get('other', 'resize')).toBeNull();
      expect(await store().functions.getById('no-such-id')).toBeNull();
    });

    it('create returns false and keeps the first function when the owner already has that name', async () => {
      const first = aBareFunction({ ownerName: 'acme', name: 'resize' });
      await store().functions.create(first);
      const second = aFullFunction({ ownerName: 'acme', name: 'resize' });
      expect(await store().functions.create(second)).toBe(false);
      expect(await store().functions.get('acme', 'resize')).toEqual(first);
      expect(await store().functions.getById(second.id)).toBeNull();
    });

    it('the same name under another owner is another function', async () => {
      const ours = aBareFunction({ ownerName: 'acme', name: 'resize' });
      const theirs = aBareFunction({ ownerName: 'globex', name: 'resize' });
      expect(await store().functions.create(ours)).toBe(true);
      expect(await store().functions.create(theirs)).toBe(true);
      expect(await store().functions.get('globex', 'resize')).toEqual(theirs);
    });

    it('put replaces every field of the stored function, nulls included', async () => {
      const full = aFullFunction();
      await store().functions.create(full);
      const replaced = aBareFunction({ id: full.id, ownerName: full.ownerName, name: full.name, updatedAt: full.updatedAt + 10 });
      await store().functions.put(replaced);
      expect(await store().functions.get(full.ownerName, full.name)).toEqual(replaced);
      expect(await store().functions.getById(full.id)).toEqual(replaced);
    });

    it('put does not create a function that was never created', async () => {
      const fn = aBareFunction();
      await store().functions.put(fn);
      expect(await store().functions.get(fn.ownerName, fn.name)).toBeNull();
      expect(await store().functions.getById(fn.id)).toBeNull();
    });

    it("listByOwner returns only that owner's functions, ordered by name (code point order)", async () => {
      for (const name of ['b', 'a-1', 'B', 'a']) await store().functions.create(aBareFunction({ ownerName: 'acme', name }));
      await store().functions.create(aBareFunction({ ownerName: 'globex', name: 'a-0' }));
      const listed = await store().functions.listByOwner('acme', { limit: 10, offset: 0 });
      expect(listed.map((fn) => fn.name)).toEqual(['B', 'a', 'a-1', 'b']);
      expect(listed.every((fn) => fn.ownerName === 'acme')).toBe(true);
    });

    it('listByOwner honours limit and offset', async () => {
      for (const name of ['e', 'd', 'c', 'b', 'a']) await store().functions.create(aBareFunction({ ownerName: 'acme', name }));
      const names = async (limit: number, offset: number) => (await store().functions.listByOwner('acme', { limit, offset })).map((fn) => fn.name);
      expect(await names(2, 0)).toEqual(['a', 'b']);
      expect(await names(2, 2)).toEqual(['c', 'd']);
      expect(await names(2, 4)).toEqual(['e']);
      expect(await names(2, 5)).toEqual([]);
    });

    it('listByOwner returns full records', async () => {
      const fn = aFullFunction({ ownerName: 'acme' });
      await store().functions.create(fn);
      expect(await store().functions.listByOwner('acme', { limit: 1, offset: 0 })).toEqual([fn]);
    });

    it('listByOwner returns nothing for an owner without functions', async () => {
      await store().functions.create(aBareFunction({ ownerName: 'acme' }));
      expect(await store().functions.listByOwner('nobody', { limit: 10, offset: 0 })).toEqual([]);
    });
  });
}
