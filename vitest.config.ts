import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects; `npm test` (`vitest run`) runs both, `npm run test:fast` only the first.
 * - fast: pure specs, which start no process and open no socket (not even a localhost server).
 *   The setup file test/support/fastTier.ts makes either throw and fails the test that tried, so
 *   a spec doing I/O of that kind cannot stay here: test/unit/ holds only pure specs, and
 *   test/integration/ (same depth) the unit specs that run real processes, servers or Python.
 * - slow: the rest (test/integration, the contracts run against dynalite and moto, test/infra's
 *   CDK synths, test/emulator, test/e2e, test/browser, test/acceptance), as before: in processes
 *   of their own, with one Python environments folder a run (test/support/environmentsPerRun.ts).
 */
const FAST = ['test/unit/**/*.test.ts', 'test/contract/sqlite*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: FAST,
          setupFiles: ['test/support/fastTier.ts'],
          // Worker threads start far quicker than processes, and pure specs need no process of
          // their own; one a core (at least two: a 2-core machine's default would be one).
          pool: 'threads',
          maxWorkers: Math.max(2, availableParallelism()),
          // Its own worker count needs its own group: the fast specs run first, then the slow.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FAST],
          pool: 'forks',
          globalSetup: ['test/support/environmentsPerRun.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
