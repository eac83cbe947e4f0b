import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../shared/ports/store.js';
import { describeApiKeyContract } from './apiKeyContract.js';
import { describeDeliveryContract } from './deliveryContract.js';
import { describeIdempotencyContract } from './idempotencyContract.js';
import { describeFunctionContract } from './functionContract.js';
import { describeJobContract } from './jobContract.js';
import { describeJobListContract } from './jobListContract.js';
import { describeJobOutputContract } from './jobOutputContract.js';
import { describeJobReplayContract } from './jobReplayContract.js';
import { describeLogContract } from './logContract.js';
import { describeOrganizationContract } from './organizationContract.js';
import { describeUsageContract } from './usageContract.js';
import { describeVersionContract } from './versionContract.js';

export interface StoreUnderTest {
  store: Store;
  /** Closes the store and frees whatever it stood on (a database, a server). */
  cleanup: () => Promise<void>;
}

/** The store of the running test; each test gets a fresh, empty one. */
export type CurrentStore = () => Store;

/**
 * The behaviour every Store adapter must have, as its users rely on it. Each adapter's test
 * file calls this with a factory for an empty store.
 */
export function describeStoreContract(adapterName: string, createStore: () => Promise<StoreUnderTest>): void {
  describe(`Store contract: ${adapterName}`, () => {
    let current: StoreUnderTest | undefined;
    beforeEach(async () => {
      current = await createStore();
    });
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });
    const store: CurrentStore = () => {
      if (!current) throw new Error('no store: used outside a test');
      return current.store;
    };
    describeOrganizationContract(store);
    describeApiKeyContract(store);
    describeFunctionContract(store);
    describeVersionContract(store);
    describeLogContract(store);
    describeJobContract(store);
    describeJobListContract(store);
    describeJobOutputContract(store);
    describeJobReplayContract(store);
    describeDeliveryContract(store);
    describeUsageContract(store);
    describeIdempotencyContract(store);
  });
}
