import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's global setup: one Python environments folder (SLUICE_ENVIRONMENTS_DIR) for every test
 * service of a run, so the default packages are installed once a run (not once a spec file) and
 * spec files that deploy the same packages share an environment; removed when the run ends, so
 * each run's builds make them afresh. pip tries each index once (PIP_RETRIES): these machines'
 * pip configuration may list an index it cannot reach before the mirror it can.
 */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'sluice-test-environments-'));
  process.env.SLUICE_ENVIRONMENTS_DIR ??= folder;
  process.env.PIP_RETRIES ??= '1';
  return () => rmSync(folder, { recursive: true, force: true });
}
