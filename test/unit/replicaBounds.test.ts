import { describe, expect, it } from 'vitest';
import { replicaBoundsProblem, wantedReplicas } from '../../shared/domain/replicaBounds.js';

describe('replica bounds', () => {
  const bounds = { minimumReplicas: 1, maximumReplicas: 8 };

  it('wants a replica for each running or waiting job, plus the buffer while there are any, within the bounds', () => {
    expect(wantedReplicas({ ...bounds, bufferReplicas: 2 }, 3, 8)).toBe(5);
    expect(wantedReplicas({ ...bounds, bufferReplicas: 2 }, 7, 8)).toBe(8);
    expect(wantedReplicas({ ...bounds, bufferReplicas: 2 }, 0, 8)).toBe(1);
    expect(wantedReplicas(bounds, 3, 8)).toBe(3);
  });

  it('accepts a scale-down window from 0 to a day, or null for the deployment’s default, and a buffer up to 64', () => {
    expect(replicaBoundsProblem({ ...bounds, scaledownWindowSeconds: 0, bufferReplicas: 64 })).toBeNull();
    expect(replicaBoundsProblem({ ...bounds, scaledownWindowSeconds: null })).toBeNull();
    expect(replicaBoundsProblem({ ...bounds, scaledownWindowSeconds: 86_401 })).toMatch(/^scaledown_window must be from 0 to 86400 seconds/);
    expect(replicaBoundsProblem({ ...bounds, bufferReplicas: -1 })).toBe('buffer_replicas must be from 0 to 64.');
  });
});
