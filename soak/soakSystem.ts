import { randomUUID } from 'node:crypto';
import type { SoakOrganization } from './workload.js';

/** One fault as the system injected it: what was done, and when it was over (when recovery is timed from). */
export interface InjectedFault {
  detail: string;
  /** When the fault itself ended and recovery began (a kill: its instant, before any restart); default when the injection resolved. */
  endedAt?: number;
}

/** A Sluice under soak, in either mode: where clients reach it, who they are, and the faults it can take. */
export interface SoakSystem {
  mode: 'local' | 'aws';
  url: string;
  awaitBase: string;
  organizations: SoakOrganization[];
  /** Each fault kind this system can inject: it resolves once the fault is over (a killed service started again, a full disk freed). */
  faults: Record<string, () => Promise<InjectedFault>>;
  /** Fault kinds asked for that cannot be injected here, with why. */
  unavailableFaults: Record<string, string>;
  close(): Promise<void>;
}

/** The organizations every soak runs: several, so one's faults and load meet another's. */
export const ORGANIZATION_NAMES = ['local', 'acme', 'globex'];

/** The operator's token (SLUICE_OPERATOR_TOKEN) each system is started with: the soak sets a budget with it. */
export const OPERATOR_TOKEN = randomUUID();

/**
 * The organization the soak gives a monthly budget: one its jobs pass the warning threshold of
 * within seconds of cpu time ($0.0001), so a short soak sends budget.warning too, and never spend.
 */
export const BUDGETED = { organization: 'acme', limits: { monthly_budget: 10, budget_warning_at: 0.00001 } };
