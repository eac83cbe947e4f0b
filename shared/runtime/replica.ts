import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { LineReader } from '../system/lineReader.js';
import { readLines } from '../system/lineReader.js';
import { killProcessGroup } from '../system/processGroup.js';
import type { AgentMessage, AwaitMessage, CallMessage, CallResult, OutputMessage, ReplicaMessage } from './protocol.js';

export type ReplicaState = 'starting' | 'setup' | 'idle' | 'active' | 'stopped';

/** How a run ended: the function's own verdict, or the process dying under it. */
export type RunOutcome =
  | { kind: 'done' }
  | { kind: 'error'; error: string; fatal?: boolean }
  | { kind: 'crashed'; exitCode: number | null; signal: NodeJS.Signals | null; killedByAgent: boolean };

export interface RunHandlers {
  /** What it returns is waited for before the run ends: a file output is stored before the replica takes another job, which may overwrite it. */
  onOutput(message: OutputMessage): unknown;
  /** A call to another function, or an await of a job this one pushed. */
  onCall(message: CallMessage | AwaitMessage): Promise<CallResult>;
}

/** How long a run that has reported back waits for more of its output before its end marker (a function may have closed stdout). */
const OUTPUT_DRAIN_MS = 2_000;

type Stream = 'stdout' | 'stderr';

/** The command that starts `python -m sluice._runtime` in a version's code, possibly through a sandbox. */
export interface ReplicaCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface ReplicaSpawn extends ReplicaCommand {
  id: string;
  /** Each line the process prints, on stdout or stderr (end-of-job markers left out). */
  onLine(line: string, stream: Stream): void;
  /** Called once, when the process has exited. */
  onExit(replica: Replica): void;
}

/**
 * One long-lived process of a function version. It runs setup once, then jobs one at a time.
 * `ready` resolves when setup succeeded (or rejects with the setup error).
 *
 * A run ends when the replica has reported back and its output up to the job's end marker has
 * been read, so every line the job printed is passed on before the next job starts. The process
 * leads its own process group: killing it kills everything it started.
 */
export class Replica {
  state: ReplicaState = 'starting';
  currentJobId: string | null = null;
  /** How the process ended, once it has: stopped by the agent, or on its own (a crash). */
  exitStatus: { exitCode: number | null; signal: NodeJS.Signals | null; killedByAgent: boolean } | null = null;
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly channel: Socket;
  /** `run` goes on a socket of its own (fd 4), which the replica's main thread reads between jobs (protocol.ts). */
  private readonly jobs: Socket;
  /** The lines of stdout and stderr, as they are read. */
  private readonly readers = new Map<Stream, LineReader>();
  private killedByAgent = false;
  private exited = false;
  private run: {
    resolve: (outcome: RunOutcome) => void;
    handlers: RunHandlers;
    verdict?: RunOutcome;
    drainTimer?: NodeJS.Timeout;
    outputs: Promise<unknown>[];
    ending?: boolean;
  } | null = null;
  /** The last run's end marker, and the streams on which it has not been read yet. */
  private endMarker = '';
  private readonly undrained = new Set<Stream>();
  /** Setup said `ready`; the replica is idle once setup's output is read (becomeReady). */
  private setupEnded = false;
  private setupDrainTimer?: NodeJS.Timeout;
  private readonly readyWaiter: { resolve: () => void; reject: (error: Error) => void };

  constructor(private readonly spec: ReplicaSpawn) {
    let waiter!: { resolve: () => void; reject: (error: Error) => void };
    this.ready = new Promise<void>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.ready.catch(() => undefined);
    this.readyWaiter = waiter;
    // Setup's output ends with a marker too: a line it printed is the version's, never read as
    // the first job's once that job has been handed out on `ready`.
    const setupMarker = `sluice-end-of-setup ${randomUUID()}`;
    const env = { ...spec.env, SLUICE_SETUP_END_MARKER: setupMarker };
    this.child = spawn(spec.command, spec.args, { cwd: spec.cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'], detached: true });
    this.awaitEndMarker(setupMarker);
    this.channel = this.child.stdio[3] as Socket;
    this.jobs = this.child.stdio[4] as Socket;
    for (const stream of ['stdout', 'stderr'] as const) {
      this.child[stream]?.on('error', () => undefined); // a killed process can reset its pipes; exit reports it
      const onLine = (line: string) => {
        // At the end of a line: the job's last write may not have ended its line.
        if (this.undrained.has(stream) && this.endMarker !== '' && line.endsWith(this.endMarker)) {
          const unfinished = line.slice(0, -this.endMarker.length);
          if (unfinished !== '') spec.onLine(unfinished, stream);
          return this.drained(stream);
        }
        this.run?.drainTimer?.refresh(); // output still flowing (a log writer catching up): keep waiting for the marker
        spec.onLine(line, stream);
      };
      this.readers.set(
        stream,
        readLines(this.child[stream] as Readable, onLine, () => this.drained(stream)),
      );
    }
    readLines(this.channel, (line) => this.receive(line));
    for (const socket of [this.channel, this.jobs]) socket.on('error', () => undefined); // the exit handler reports what matters
    this.child.on('error', (error) => this.handleExit(null, null, error.message));
    this.child.on('exit', (code, signal) => this.handleExit(code, signal));
  }

  get id(): string {
    return this.spec.id;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Pauses reading the process's output (its log writer is behind); the process blocks on a full pipe. */
  pauseOutput(paused: boolean): void {
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (paused) stream?.pause();
      else stream?.resume();
    }
  }

  /** Holds an idle replica for a job whose inputs are still being fetched: no other job is handed to it, and cancelling the job stops it. */
  reserve(jobId: string): void {
    if (this.state !== 'idle') throw new Error(`replica ${this.id} is ${this.state}, not idle`);
    this.state = 'active';
    this.currentJobId = jobId;
  }

  /** Gives back a replica reserved for a job that will not run on it after all. */
  release(jobId: string): void {
    if (this.state === 'active' && this.currentJobId === jobId && this.run === null) {
      this.state = 'idle';
      this.currentJobId = null;
    }
  }

  /** Runs a job on an idle replica, or on one reserved for it. */
  runJob(
    job: { jobId: string; runId: string; inputs: Record<string, unknown>; env: Record<string, string>; maxOutputBytes: number },
    handlers: RunHandlers,
  ): Promise<RunOutcome> {
    const reserved = this.state === 'active' && this.currentJobId === job.jobId && this.run === null;
    if (this.state !== 'idle' && !reserved) throw new Error(`replica ${this.id} is ${this.state}, not idle`);
    this.state = 'active';
    this.currentJobId = job.jobId;
    this.awaitEndMarker(`sluice-end-of-job ${randomUUID()}`);
    return new Promise((resolve) => {
      this.run = { resolve, handlers, outputs: [] };
      this.send({
        type: 'run',
        job_id: job.jobId,
        run_id: job.runId,
        inputs: job.inputs,
        env: job.env,
        end_marker: this.endMarker,
        max_output_bytes: job.maxOutputBytes,
      });
    });
  }

  /** Ends the process at once (a cancelled job, an idle replica, shutdown). */
  kill(): void {
    if (this.exited) return;
    this.killedByAgent = true;
    // Stopped from now on, not at the exit event: no job may be handed to a dying process.
    this.state = 'stopped';
    killProcessGroup(this.child);
  }

  private send(message: AgentMessage): void {
    const socket = message.type === 'run' ? this.jobs : this.channel;
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    let message: ReplicaMessage;
    try {
      message = JSON.parse(line) as ReplicaMessage;
    } catch {
      return; // not ours: the protocol channel carries only JSON lines
    }
    switch (message.type) {
      case 'hello':
        this.state = 'setup';
        break;
      case 'ready':
        // Ready once setup's output is read to its marker (or OUTPUT_DRAIN_MS on, as for a run).
        this.setupEnded = true;
        if (this.undrained.size === 0) this.becomeReady();
        else this.setupDrainTimer = setTimeout(() => this.becomeReady(), OUTPUT_DRAIN_MS);
        break;
      case 'setup_error':
        this.readyWaiter.reject(new Error(message.error));
        break;
      case 'output':
        if (this.run) this.run.outputs.push(Promise.resolve(this.run.handlers.onOutput(message)));
        break;
      case 'call':
      case 'await':
        void this.run?.handlers.onCall(message).then((result) => this.send(result));
        break;
      case 'done':
      case 'error':
        if (message.output_read === true) this.readAll();
        this.finishRun(message.type === 'done' ? { kind: 'done' } : { kind: 'error', error: message.error, fatal: message.fatal === true });
        break;
    }
  }

  /**
   * The replica found all it wrote to stdout and stderr read, and sent no end marker: each stream
   * is drained once its lines read so far are given (at once, unless it was paused while the log
   * writer caught up); the run's end gives its last line, unended (endRun).
   */
  private readAll(): void {
    const run = this.run;
    for (const [stream, reader] of this.readers) {
      if (!this.undrained.has(stream)) continue;
      reader.whenCaughtUp(() => {
        if (this.run === run) this.drained(stream); // else ended meanwhile (OUTPUT_DRAIN_MS): the next run's lines are not its
      });
    }
  }

  /** The replica reported back: the run ends once its output is read up to the end marker. */
  private finishRun(outcome: RunOutcome): void {
    const run = this.run;
    if (!run || run.verdict) return;
    run.verdict = outcome;
    if (this.undrained.size === 0) return this.endRun();
    run.drainTimer = setTimeout(() => this.endRun(), OUTPUT_DRAIN_MS);
  }

  /** What the process prints from now on ends with `marker` on each open pipe: setup or the run ends once it is read there. */
  private awaitEndMarker(marker: string): void {
    this.endMarker = marker;
    for (const stream of ['stdout', 'stderr'] as const) if (this.child[stream]?.readable) this.undrained.add(stream);
  }

  private drained(stream: Stream): void {
    this.undrained.delete(stream);
    if (this.undrained.size > 0) return;
    if (this.run?.verdict) this.endRun();
    else if (this.setupEnded) this.becomeReady();
  }

  private becomeReady(): void {
    if (this.state !== 'setup' && this.state !== 'starting') return; // ready already, or stopped
    clearTimeout(this.setupDrainTimer);
    this.undrained.clear();
    this.state = 'idle';
    this.readyWaiter.resolve();
  }

  private endRun(): void {
    const run = this.run;
    if (!run?.verdict || run.ending) return;
    run.ending = true;
    clearTimeout(run.drainTimer);
    // What was read of a line the run's output left unfinished is its own, however the run ended
    // (its marker never came, say): never the start of the next run's first line.
    for (const reader of this.readers.values()) reader.flush();
    this.undrained.clear();
    // Busy until its outputs are handled: the next job could overwrite a file output not yet stored.
    void Promise.allSettled(run.outputs).then(() => {
      if (this.run !== run) return; // the process exited meanwhile, which ended the run
      this.run = null;
      this.currentJobId = null;
      if (this.state === 'active') this.state = 'idle';
      run.resolve(run.verdict as RunOutcome);
    });
  }

  private handleExit(exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string): void {
    if (this.exited) return;
    this.exited = true;
    clearTimeout(this.setupDrainTimer);
    this.exitStatus = { exitCode, signal, killedByAgent: this.killedByAgent };
    this.state = 'stopped';
    this.readyWaiter.reject(new Error(spawnError ?? `the replica exited during setup (${signal ?? `exit status ${exitCode}`})`));
    // What the function started dies with it.
    killProcessGroup(this.child);
    if (this.run) {
      const run = this.run;
      clearTimeout(run.drainTimer);
      this.run = null;
      this.currentJobId = null;
      run.resolve(run.verdict ?? { kind: 'crashed', exitCode, signal, killedByAgent: this.killedByAgent });
    }
    this.channel.destroy();
    this.jobs.destroy();
    this.spec.onExit(this);
  }
}
