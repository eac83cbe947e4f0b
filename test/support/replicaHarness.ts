/**
 * Starts one replica, `python3 -m sluice._runtime`, the way the agent does (cwd = the code
 * directory, the protocol on fd 3, jobs on fd 4) and talks to it: send(message), next(type) for
 * the next message of a type, and the logs it wrote on stdout and stderr.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const pythonDir = join(repoRoot, 'python');
export const python = process.env.SLUICE_PYTHON ?? 'python3';

export type Message = { type: string; [field: string]: any };

export interface Received {
  message: Message;
  /** performance.now() when the line was read. */
  at: number;
  /** How many lines had been read from stdout when it arrived. */
  stdoutLines: number;
}

export interface ReplicaOptions {
  /** Files of the code directory, path -> content. */
  files: Record<string, string>;
  entryFile?: string;
  symbol: string;
  kind?: 'function' | 'class';
  env?: Record<string, string>;
}

export interface Replica {
  child: ChildProcess;
  dir: string;
  stdout: string[];
  stderr: string[];
  /** Every message received so far, in order. */
  received: Received[];
  /** fd 3, the protocol socket (end() it to play an agent that went away). */
  protocol: Socket;
  /** Sends a message where the agent does: `run` on fd 4, the rest on fd 3. */
  send(message: Message): void;
  /** The next message of this type not yet taken by next() (waits for it). */
  next(type: string, timeoutMs?: number): Promise<Received>;
  /** The first message received that matches (waits for it). */
  until(matches: (message: Message) => boolean, what: string, timeoutMs?: number): Promise<Received>;
  /** The exit code (waits for it). */
  exited(timeoutMs?: number): Promise<number | null>;
  kill(): void;
}

export async function startReplica(root: string, options: ReplicaOptions): Promise<Replica> {
  const dir = await mkdtemp(join(root, 'code-'));
  for (const [path, content] of Object.entries(options.files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const child = spawn(python, ['-m', 'sluice._runtime'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PYTHONPATH: `${pythonDir}:${dir}`,
      PYTHONUNBUFFERED: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      SLUICE_ENTRY_FILE: options.entryFile ?? 'main.py',
      SLUICE_ENTRY_SYMBOL: options.symbol,
      SLUICE_ENTRY_KIND: options.kind ?? 'function',
      ...options.env,
    },
  });
  const protocol = child.stdio[3] as Socket;
  const jobs = child.stdio[4] as Socket;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const received: Received[] = [];
  const taken = new Set<Received>();
  let waiters: (() => void)[] = [];
  const wake = (): void => {
    const current = waiters;
    waiters = [];
    for (const w of current) w();
  };

  createInterface({ input: child.stdout! }).on('line', (line) => {
    stdout.push(line);
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
  });
  createInterface({ input: protocol }).on('line', (line) => {
    received.push({ message: JSON.parse(line) as Message, at: performance.now(), stdoutLines: stdout.length });
    wake();
  });

  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((done) => {
    child.on('exit', (code) => {
      exitCode = code;
      done(code);
      wake();
    });
  });

  const describe = (): string => `received: ${JSON.stringify(received.map((r) => r.message))}\nstderr: ${stderr.join('\n')}`;

  const waitFor = (matches: (r: Received) => boolean, what: string, timeoutMs: number): Promise<Received> =>
    new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no ${what} within ${timeoutMs} ms\n${describe()}`)), timeoutMs);
      const check = (): void => {
        const found = received.find(matches);
        if (found) {
          clearTimeout(timer);
          done(found);
        } else if (exitCode !== undefined) {
          clearTimeout(timer);
          fail(new Error(`the replica exited (${exitCode}) before ${what}\n${describe()}`));
        } else {
          waiters.push(check);
        }
      };
      check();
    });

  return {
    child,
    dir,
    stdout,
    stderr,
    received,
    protocol,
    send(message) {
      (message.type === 'run' ? jobs : protocol).write(`${JSON.stringify(message)}\n`);
    },
    next(type, timeoutMs = 15_000) {
      return waitFor((r) => r.message.type === type && !taken.has(r), `a "${type}" message`, timeoutMs).then((found) => {
        taken.add(found);
        return found;
      });
    },
    until(matches, what, timeoutMs = 15_000) {
      return waitFor((r) => matches(r.message), what, timeoutMs);
    },
    exited(timeoutMs = 15_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, fail) => {
        timer = setTimeout(() => fail(new Error(`still running after ${timeoutMs} ms\n${describe()}`)), timeoutMs);
      });
      return Promise.race([exit, late]).finally(() => clearTimeout(timer));
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
