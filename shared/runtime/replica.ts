import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Interface } from 'node:readline';
import { createInterface } from 'node:readline';
import type { AgentMessage, CallMessage, CallResult, OutputMessage, ReplicaMessage } from './protocol.js';

export type ReplicaState = 'starting' | 'setup' | 'idle' | 'active' | 'stopped';

/** How a run ended: the function's own verdict, or the process dying under it. */
export type RunOutcome =
  | { kind: 'done' }
  | { kind: 'error'; error: string }
  | { kind: 'crashed'; exitCode: number | null; signal: NodeJS.Signals | null; killedByAgent: boolean };

export interface RunHandlers {
  onOutput(message: OutputMessage): void;
  onCall(message: CallMessage): Promise<CallResult>;
}

export interface ReplicaSpawn {
  id: string;
  python: string;
  codeDir: string;
  env: NodeJS.ProcessEnv;
  /** Each line the process prints, on stdout or stderr. */
  onLine(line: string, stream: 'stdout' | 'stderr'): void;
  /** Called once, when the process has exited. */
  onExit(replica: Replica): void;
}

/**
 * One long-lived process of a function version. It runs setup once, then jobs one at a time.
 * `ready` resolves when setup succeeded (or rejects with the setup error).
 */
export class Replica {
  state: ReplicaState = 'starting';
  currentJobId: string | null = null;
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly channel: Socket;
  private readonly readers: Interface[] = [];
  private killedByAgent = false;
  private exited = false;
  private run: { resolve: (outcome: RunOutcome) => void; handlers: RunHandlers } | null = null;
  private readonly readyWaiter: { resolve: () => void; reject: (error: Error) => void };

  constructor(private readonly spec: ReplicaSpawn) {
    let waiter!: { resolve: () => void; reject: (error: Error) => void };
    this.ready = new Promise<void>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.ready.catch(() => undefined);
    this.readyWaiter = waiter;
    this.child = spawn(spec.python, ['-m', 'sluice._runtime'], { cwd: spec.codeDir, env: spec.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    this.channel = this.child.stdio[3] as Socket;
    for (const stream of ['stdout', 'stderr'] as const) {
      this.child[stream]?.on('error', () => undefined); // a killed process can reset its pipes; exit reports it
      const reader = createInterface({ input: this.child[stream] as NodeJS.ReadableStream, crlfDelay: Infinity });
      reader.on('line', (line) => spec.onLine(line, stream));
      this.readers.push(reader);
    }
    createInterface({ input: this.channel, crlfDelay: Infinity }).on('line', (line) => this.receive(line));
    this.channel.on('error', () => undefined); // the exit handler reports what matters
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

  runJob(job: { jobId: string; runId: string; inputs: Record<string, unknown>; env: Record<string, string>; maxOutputBytes: number }, handlers: RunHandlers): Promise<RunOutcome> {
    if (this.state !== 'idle') throw new Error(`replica ${this.id} is ${this.state}, not idle`);
    this.state = 'active';
    this.currentJobId = job.jobId;
    return new Promise((resolve) => {
      this.run = { resolve, handlers };
      this.send({ type: 'run', job_id: job.jobId, run_id: job.runId, inputs: job.inputs, env: job.env, max_output_bytes: job.maxOutputBytes });
    });
  }

  /** Ends the process at once (a cancelled job, an idle replica, shutdown). */
  kill(): void {
    if (this.exited) return;
    this.killedByAgent = true;
    // Stopped from now on, not at the exit event: no job may be handed to a dying process.
    this.state = 'stopped';
    this.child.kill('SIGKILL');
  }

  private send(message: AgentMessage): void {
    if (!this.channel.destroyed) this.channel.write(`${JSON.stringify(message)}\n`);
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
        this.state = 'idle';
        this.readyWaiter.resolve();
        break;
      case 'setup_error':
        this.readyWaiter.reject(new Error(message.error));
        break;
      case 'output':
        this.run?.handlers.onOutput(message);
        break;
      case 'call':
        void this.run?.handlers.onCall(message).then((result) => this.send(result));
        break;
      case 'done':
      case 'error':
        this.finishRun(message.type === 'done' ? { kind: 'done' } : { kind: 'error', error: message.error });
        break;
    }
  }

  private finishRun(outcome: RunOutcome): void {
    const run = this.run;
    this.run = null;
    this.currentJobId = null;
    if (this.state === 'active') this.state = 'idle';
    run?.resolve(outcome);
  }

  private handleExit(exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string): void {
    if (this.exited) return;
    this.exited = true;
    this.state = 'stopped';
    this.readyWaiter.reject(new Error(spawnError ?? `the replica exited during setup (${signal ?? `exit status ${exitCode}`})`));
    if (this.run) {
      const run = this.run;
      this.run = null;
      this.currentJobId = null;
      run.resolve({ kind: 'crashed', exitCode, signal, killedByAgent: this.killedByAgent });
    }
    this.channel.destroy();
    this.spec.onExit(this);
  }
}
