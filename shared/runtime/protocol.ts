import type { JobStatus, PushedJobWait } from '../domain/job.js';

/**
 * The messages between the agent and a replica (`python -m sluice._runtime`), one JSON object
 * per line on file descriptor 3, except `run`, which goes on file descriptor 4: the replica's main
 * thread, which runs the jobs, reads them there itself, while another thread reads fd 3 (call
 * results, shutdown, the agent's end) during jobs. stdout and stderr stay free for the
 * function's own output.
 */
export type ReplicaMessage =
  | { type: 'hello'; pid: number }
  | { type: 'ready' }
  | { type: 'setup_error'; error: string }
  | { type: 'output'; job_id: string; index: number; value?: unknown; file?: string; name?: string; attributes?: Record<string, unknown> }
  /**
   * The job's end. `output_read`: the replica found that the agent had read all it wrote to
   * stdout and stderr, and printed no end marker: the job's output is what the agent has read.
   */
  | { type: 'done'; job_id: string; output_read?: boolean }
  /** `fatal`: the function raised FatalException: the job fails, and the replica is replaced even without restart_on_error. */
  | { type: 'error'; job_id: string; error: string; fatal?: boolean; output_read?: boolean }
  /**
   * `args`: positional inputs, named after the called version's inputs in order. A File the
   * function made itself comes as `{"_type": "sieve.File", "path", "name"}`, in `inputs` or
   * `args`, nested or not: the agent stores it for the called job (shared/runtime/callFiles.ts).
   */
  | { type: 'call'; call_id: string; function: string; inputs: Record<string, unknown>; args?: unknown[]; wait: boolean }
  /**
   * A job this job pushed (`push(...).result()`, `.outputs`, `.status`), answered by a call_result
   * with its status once `until` holds: `end`, it has ended (with all its outputs); `output`, it has
   * outputs past `offset` (those) or has ended; `now`, at once (no outputs).
   */
  | { type: 'await'; call_id: string; job_id: string; offset: number; until: PushedJobWait };

export type AgentMessage =
  /** `end_marker`: the line the replica prints on stdout and stderr when the job's output ends (unless the agent has read all of it, `output_read`). max_output_bytes: an output whose JSON is longer is written to a file and sent as a file output. */
  | { type: 'run'; job_id: string; run_id: string; inputs: Record<string, unknown>; env: Record<string, string>; end_marker: string; max_output_bytes: number }
  /**
   * `status` and `error`: the awaited job's, in the answer to an await. `stream`, in the answer
   * to a call: the called version streams (a generator), so the call is answered once the job is
   * pushed, even with `wait`, and the replica reads its outputs as they come (`await`, `output`).
   */
  | { type: 'call_result'; call_id: string; ok: true; job_id: string; outputs: unknown[]; status?: JobStatus; error?: string; stream?: boolean }
  | { type: 'call_result'; call_id: string; ok: false; error: string }
  | { type: 'shutdown' };

export type CallMessage = Extract<ReplicaMessage, { type: 'call' }>;
export type AwaitMessage = Extract<ReplicaMessage, { type: 'await' }>;
export type OutputMessage = Extract<ReplicaMessage, { type: 'output' }>;
export type CallResult = Extract<AgentMessage, { type: 'call_result' }>;
