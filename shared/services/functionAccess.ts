import { forbidden, notFound } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/**
 * Who may see and change a function. A private function is invisible to other
 * organizations (404, as if it did not exist, so its name does not leak); a public one
 * can be read and called by all; only its owner may edit it or deploy to it (403).
 */
export class FunctionAccess {
  constructor(private readonly store: Store) {}

  canRead(principal: Principal, fn: FunctionRecord): boolean {
    return fn.visibility === 'public' || fn.organizationId === principal.organizationId;
  }

  async readable(principal: Principal, ownerName: string, name: string): Promise<FunctionRecord> {
    const fn = await this.store.functions.get(ownerName, name);
    if (!fn || !this.canRead(principal, fn)) throw notFound('Function not found.');
    return fn;
  }

  async editable(principal: Principal, ownerName: string, name: string): Promise<FunctionRecord> {
    const fn = await this.readable(principal, ownerName, name);
    this.assertOwner(principal, fn);
    return fn;
  }

  assertOwner(principal: Principal, fn: FunctionRecord): void {
    if (fn.organizationId !== principal.organizationId) {
      throw forbidden(`Only the owner of ${fn.ownerName}/${fn.name} may change it.`);
    }
  }
}
