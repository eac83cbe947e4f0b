import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileSlot } from '../domain/fileOutputs.js';
import type { JobRecord } from '../domain/job.js';
import { jobLogStream } from '../domain/log.js';
import type { VersionRecord } from '../domain/version.js';
import { CallFileError, openInside, passCallFiles } from './callFiles.js';
import { InputFetchError, namesFileInputs } from './jobInputs.js';
import { outputFromMessage } from './outputs.js';
import type { PoolContext, PoolMember, ReplicaProcess } from './poolContext.js';
import type { AwaitMessage, CallMessage, CallResult, OutputMessage } from './protocol.js';
import type { Replica, RunOutcome } from './replica.js';

/** What running a job needs of its replica's pool. */
export interface RunningPool {
  readonly context: PoolContext;
  /** The version as it stands now (its bounds and settings may have been edited). */
  version(): VersionRecord;
  /** The replica is free for the pool's next job. */
  freed(replica: Replica): void;
  /** Brings the pool's idle time up to date (a replica stops being idle). */
  accrueIdle(): Promise<void>;
}

/**
 * One job on one replica of the pool: its inputs fetched, its run (outputs, calls, its time
 * limit), then its end recorded and its queue message acknowledged. The replica is freed as soon
 * as the run ends; the job's end is recorded while it takes its next job.
 */
export async function runJob(pool: RunningPool, replica: Replica, member: PoolMember | undefined, job: JobRecord): Promise<void> {
  if (!member || replica.state !== 'idle') {
    // The replica went away between taking the job and starting it: the job runs elsewhere.
    await pool.context.lifecycle.interrupt(job, 'preemption', 'The replica stopped before the job could start.');
    return;
  }
  clearTimeout(member.idleTimer);
  void pool.accrueIdle();
  const log = pool.context.openLog({
    stream: jobLogStream(job.id),
    organizationId: job.organizationId,
    functionId: job.functionId,
    jobId: job.id,
    runId: job.runId ?? '',
    stage: 'run',
  });
  member.log = log;
  replica.reserve(job.id);
  const inputs = await fetchInputs(pool, replica, member, job);
  if (inputs === null) return;
  let outputs: Promise<void> = Promise.resolve();
  const outputsTold: Promise<void>[] = [];
  let outputError: string | null = null;
  const limit = job.timeLimitSeconds ?? null;
  let timedOut = false;
  // Past its time limit the run is stopped by ending its replica (the pool starts another).
  const deadline =
    limit === null
      ? undefined
      : setTimeout(() => {
          if (replica.currentJobId !== job.id) return; // it ended just now
          timedOut = true;
          replica.kill();
        }, limit * 1000);
  const outcome = await replica.runJob(
    { jobId: job.id, runId: job.runId ?? '', inputs: inputs.values, env: job.env, maxOutputBytes: pool.context.maxOutputBytes },
    {
      onOutput: (message: OutputMessage) => {
        outputs = outputs
          .then(async () => {
            const output = await outputFromMessage(
              pool.version(),
              job,
              message,
              { replicaFile: (...file) => storeFile(pool, member.process, ...file), agentFile: pool.context.storeFile },
              pool.context.maxOutputBytes,
            );
            // Written, not yet durable: the replica goes on, and the run's end waits for `told`.
            const { told } = await pool.context.lifecycle.recordOutput(job, output);
            outputsTold.push(told);
          })
          .catch((error: unknown) => {
            outputError ??= `An output could not be stored: ${(error as Error).message}`;
          });
        return outputs;
      },
      onCall: (call) => onCall(pool, replica, member.process, job, call),
    },
  );
  clearTimeout(deadline);
  // The run's output is read to its end marker: what the replica prints from now on is not
  // this job's (a thread it left behind, say), and never the next job's.
  member.log = member.versionLog;
  await outputs;
  await inputs.remove();
  let result: RunOutcome = timedOut
    ? { kind: 'error', error: `The job exceeded its time limit of ${limit} s.` }
    : outputError && outcome.kind === 'done'
      ? { kind: 'error', error: outputError }
      : outcome;
  // A fresh process for the next job after a failure, so state it left behind does not leak;
  // after a FatalException always, as Sieve restarts even with restart_on_error=False.
  if (result.kind === 'error' && (pool.version().restartOnError || result.fatal)) replica.kill();
  // The replica is free: it takes its next job while this one's outputs are committed and its
  // end recorded. Its outputs ride the group commit; one whose commit failed fails the job.
  if (replica.state === 'idle') pool.freed(replica);
  await log.flush();
  const unstored = (await Promise.allSettled(outputsTold)).find((told) => told.status === 'rejected');
  if (unstored && result.kind === 'done') result = { kind: 'error', error: `An output could not be stored: ${(unstored.reason as Error).message}` };
  // Only an exception the function raised is retried: not FatalException, a time limit, or an output that could not be stored.
  await settle(pool, job, result, result === outcome && outcome.kind === 'error' && !outcome.fatal);
  await pool.context.queue.ack(pool.version().id, job.id);
}

/**
 * A call or an await from the running job. A call's Files the function made itself are stored
 * first, read through the replica's process where it confines what may be handed out (as file
 * outputs are), or one of the job's own File inputs, which the agent fetched; one that may not
 * be, or too many or too large, fails the call, storing nothing.
 */
async function onCall(pool: RunningPool, replica: Replica, process: ReplicaProcess, job: JobRecord, call: CallMessage | AwaitMessage): Promise<CallResult> {
  if (call.type !== 'call') return pool.context.handleCall(job, call);
  const ownInputs = join(pool.context.inputsDir, replica.id, job.id);
  let passed: CallMessage;
  try {
    passed = await passCallFiles(call, {
      open: async (path) =>
        process.openOutput ? ((await process.openOutput(path)) ?? (await openInside(path, ownInputs))) : { path, close: async () => undefined },
      store: (path, name, size) => pool.context.storeCallFile(job, path, name, size),
      maxBytes: pool.context.maxCallFileBytes,
    });
  } catch (error) {
    if (!(error instanceof CallFileError)) pool.context.onError(error, `files of a call by job ${job.id}`);
    return {
      type: 'call_result',
      call_id: call.call_id,
      ok: false,
      error: error instanceof CallFileError ? error.message : 'the files it passes could not be stored',
    };
  }
  return pool.context.handleCall(job, passed);
}

/** Stores a file output, read through the replica's process where it confines what may be handed out. */
async function storeFile(pool: RunningPool, process: ReplicaProcess, job: JobRecord, slot: FileSlot, path: string, name: string): Promise<unknown> {
  if (!process.openOutput) return pool.context.storeFile(job, slot, path, name);
  const opened = await process.openOutput(path);
  if (!opened)
    throw new Error(`output ${slot} names ${path}, which is not a file the function may hand out (write outputs under its scratch folder, /tmp or $HOME)`);
  try {
    return await pool.context.storeFile(job, slot, opened.path, name);
  } finally {
    await opened.close();
  }
}

/**
 * Fetches the job's File inputs on the replica's behalf (the replica reads local files only).
 * Null when the job cannot run: an input could not be fetched (the job ends in error saying
 * why) or the replica stopped meanwhile (the job was cancelled, or goes back to the queue).
 */
async function fetchInputs(
  pool: RunningPool,
  replica: Replica,
  member: PoolMember,
  job: JobRecord,
): Promise<{ values: Record<string, unknown>; remove: () => Promise<void> } | null> {
  // Nothing to fetch, so no folder to stat and no AbortController: on no-op jobs those two were 6% of the service profile.
  if (!namesFileInputs(pool.version(), job)) return { values: job.inputs, remove: async () => undefined };
  const directory = join(pool.context.inputsDir, replica.id, job.id);
  const remove = () => rm(directory, { recursive: true, force: true });
  const aborter = new AbortController();
  member.abortFetch = aborter;
  let values: Record<string, unknown> | null = null;
  let failure: string | null = null;
  try {
    values = await pool.context.fetchInputs(pool.version(), job, directory, aborter.signal);
  } catch (error) {
    failure = error instanceof InputFetchError ? error.message : 'An input could not be fetched.';
    if (!(error instanceof InputFetchError) && !aborter.signal.aborted) pool.context.onError(error, `inputs of job ${job.id}`);
  } finally {
    member.abortFetch = undefined;
  }
  if (values !== null && replica.state === 'active') return { values, remove };
  await remove();
  if (replica.state === 'active') {
    replica.release(job.id);
    await member.log.flush();
    member.log = member.versionLog;
    pool.freed(replica);
    await pool.context.lifecycle.fail(job, failure ?? 'An input could not be fetched.');
  } else {
    // The replica stopped (a cancel, the service stopping, a crash): back to the queue, unless
    // the job left `processing` already (cancelled), which the conditional move leaves alone.
    const why = pool.context.isStopping() ? 'The service stopped while the job ran.' : 'The replica stopped before the job could start.';
    await pool.context.lifecycle.interrupt(job, 'preemption', why);
  }
  await pool.context.queue.ack(pool.version().id, job.id);
  return null;
}

async function settle(pool: RunningPool, job: JobRecord, outcome: RunOutcome, retryable: boolean): Promise<void> {
  const { lifecycle } = pool.context;
  switch (outcome.kind) {
    case 'done':
      await lifecycle.finish(job);
      return;
    case 'error':
      await lifecycle.fail(job, outcome.error, { retryable });
      return;
    case 'crashed':
      if (pool.context.isStopping()) {
        await lifecycle.interrupt(job, 'preemption', 'The service stopped while the job ran.');
      } else if (!outcome.killedByAgent) {
        const oom = outcome.signal === 'SIGKILL';
        const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited with status ${outcome.exitCode}`;
        await lifecycle.interrupt(job, oom ? 'OOM' : 'error', `The replica ${how}${oom ? ' (most likely out of memory)' : ''}.`);
      }
      // Killed by the agent otherwise: the job was cancelled, and its status says so already;
      // what follows the cancel is made here too if its maker (an API call) died first.
      else await lifecycle.settleEnded(job.id);
      return;
  }
}
