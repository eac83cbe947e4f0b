import type { InvariantRow, SoakEvidence } from './invariants.js';

export interface SoakFacts {
  mode: string;
  seed: number;
  minutes: number;
  evidence: SoakEvidence;
  unavailableFaults: Record<string, string>;
}

const count = <T>(items: T[], key: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
};

/** The soak's report: what ran, the faults by kind with their recovery times, and the invariants table. */
export function formatReport(rows: InvariantRow[], facts: SoakFacts): string {
  const { records, jobs, faults, receivers } = facts.evidence;
  const lines = [
    `## Soak: ${facts.mode} mode, ${facts.minutes.toFixed(1)} min, seed ${facts.seed}`,
    '',
    `- pushes: ${records.length} (${records.filter((record) => record.id).length} acknowledged); jobs in the store: ${jobs.size} (workflow children included)`,
    `- by kind: ${count(records, (record) => record.kind)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}`,
    `- jobs by final status: ${count([...jobs.values()], (job) => job.status)
      .map(([status, n]) => `${status} ${n}`)
      .join(', ')}`,
    `- refused answers clients retried: ${
      count(
        records.flatMap((record) => record.refusals),
        (refusal) => refusal.split(' ')[0]!,
      )
        .map(([status, n]) => `${status} ${n}`)
        .join(', ') || 'none'
    }`,
    `- event-stream reconnections with Last-Event-ID: ${records.reduce((sum, record) => sum + record.resumes, 0)}`,
    `- receivers' bad spells: ${Object.entries(
      receivers.reduce<Record<string, number>>((sum, receiver) => {
        for (const [mood, n] of Object.entries(receiver.moods)) sum[mood] = (sum[mood] ?? 0) + n;
        return sum;
      }, {}),
    )
      .map(([mood, n]) => `${mood} ${n}`)
      .join(', ')}`,
    ...Object.entries(facts.unavailableFaults).map(([kind, why]) => `- not injected: ${kind} (${why})`),
    '',
    '| fault | injected | recovery p50 (s) | recovery max (s) |',
    '|---|---|---|---|',
    ...count(faults, (fault) => fault.kind).map(([kind, n]) => {
      const times = faults
        .filter((fault) => fault.kind === kind)
        .map((fault) => fault.recoverySeconds ?? Infinity)
        .sort((a, b) => a - b);
      return `| ${kind} | ${n} | ${times[Math.floor((times.length - 1) / 2)]} | ${times.at(-1)} |`;
    }),
    '',
    '| invariant | held | checked |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.invariant} | ${row.held ? 'yes' : '**NO**'} | ${row.detail.replaceAll('|', '\\|')} |`),
    '',
  ];
  return lines.join('\n');
}
