import type { FaultRecord } from './history.js';
import { request, sleep } from './http.js';
import type { Random } from './random.js';
import type { SoakSystem } from './soakSystem.js';

/** How fast a read must be answered for the service to count as recovered. */
export const LATENCY_BUDGET_MS = 1_000;
/** A fault the service has not recovered from in this long is reported as never recovered. */
const RECOVERY_LIMIT_MS = 180_000;

/**
 * Injects the system's faults in random order until stopped, one at a time, `meanGapMs` apart
 * on average; after each, times how long the service takes to answer a read within
 * LATENCY_BUDGET_MS again.
 */
export async function injectFaults(system: SoakSystem, random: Random, meanGapMs: number, stopped: () => boolean): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  const kinds = Object.keys(system.faults);
  if (kinds.length === 0) return records;
  // The first fault comes after the load has settled.
  await sleep(random.between(meanGapMs / 2, meanGapMs));
  // Drawn from a shuffled bag, refilled when empty: even a short soak injects every kind.
  let bag: string[] = [];
  while (!stopped()) {
    if (bag.length === 0) bag = [...kinds].sort(() => random.next() - 0.5);
    const kind = bag.pop()!;
    const at = Date.now();
    let injected: { detail: string; endedAt?: number };
    try {
      injected = await system.faults[kind]!();
    } catch (error) {
      injected = { detail: `injection failed: ${(error as Error).message}` };
    }
    records.push({ kind, at, detail: injected.detail, recoverySeconds: await recoverySeconds(system, injected.endedAt ?? Date.now()) });
    process.stderr.write(`soak fault: ${kind}: ${injected.detail} (recovered in ${records.at(-1)!.recoverySeconds ?? 'never'} s)\n`);
    await sleep(random.between(meanGapMs / 2, (meanGapMs * 3) / 2));
  }
  return records;
}

/** Seconds from `from` until a read of the job list is answered within the budget; null when it is not within RECOVERY_LIMIT_MS. */
export async function recoverySeconds(system: SoakSystem, from: number): Promise<number | null> {
  const { key } = system.organizations[0]!;
  while (Date.now() - from < RECOVERY_LIMIT_MS) {
    const sent = Date.now();
    const answer = await request(`${system.url}/v2/jobs?limit=1`, { key, timeoutMs: LATENCY_BUDGET_MS }).catch(() => null);
    if (answer?.status === 200 && Date.now() - sent <= LATENCY_BUDGET_MS) return Math.round((Date.now() - from) / 100) / 10;
    await sleep(100);
  }
  return null;
}
