import { defineRoute } from '../route.js';
import { computeAvailabilityWireSchema } from '../../domain/wire/compute.js';

/**
 * The machine types this deployment can run, keyed by Sieve's names: locally cpu and the GPUs
 * found (or every type, emulated), on AWS those with a capacity provider.
 */
export const getComputeAvailability = defineRoute({
  name: 'getComputeAvailability',
  method: 'GET',
  path: '/v2/services/compute',
  summary: 'The machine types this deployment can run',
  response: { schema: computeAvailabilityWireSchema },
  handle: async ({ services }) => {
    const machineTypes = await services.compute.machineTypes();
    return {
      body: Object.fromEntries(
        machineTypes.map((type) => [
          type.machineType,
          { available: type.available, gpu: type.machineType !== 'cpu', gpus: type.gpus, emulated: type.emulated, capacity_provider: type.capacityProvider },
        ]),
      ),
    };
  },
});
