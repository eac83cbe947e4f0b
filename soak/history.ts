/** The kinds of job the soak pushes (soak/functions/main.py), each with what it must end as. */
export type JobKind = 'echo' | 'sleep' | 'stream' | 'workflow' | 'file' | 'cancel' | 'timeLimit';

export const FINAL_STATUSES = ['finished', 'error', 'cancelled'] as const;

/** What one client was told about one push: the history the end state is checked against (as Jepsen keeps it). */
export interface PushRecord {
  tag: string;
  organization: string;
  kind: JobKind;
  idempotencyKey: string;
  /** The job id of the first 200 answer; null while none came (the client gave up: the push may or may not exist). */
  id: string | null;
  /** Every id a 200 answer carried, the deliberate repeats with the same key included. */
  answeredIds: string[];
  /** Statuses of the answers that were not 200, and errors with no answer, in order. */
  refusals: string[];
  /** The repeats sent on purpose after a 200 (an idempotent client retrying a push it lost the answer of). */
  repeats: number;
  /** The webhook event types the push subscribed to. */
  subscribed?: string[];
  /** The stream length a `stream` push asked for. */
  count?: number;
  /** The digest a `file` push's output must hold. */
  digest?: string;
  /** Every terminal status a client was told (await, event stream `done`), with where from. */
  told: { via: string; status: string; error?: string; at: number; outputs?: unknown[] }[];
  /** The outputs an event stream handed out, in order, across its reconnections. */
  streamedOutputs?: unknown[];
  /** Reconnections of its event stream with Last-Event-ID. */
  resumes: number;
}

/** One fault as injected, and how long the service took to answer within its budget again. */
export interface FaultRecord {
  kind: string;
  at: number;
  detail: string;
  /** Seconds from the fault's end until the service answered within its latency budget; null if it never did. */
  recoverySeconds: number | null;
}
