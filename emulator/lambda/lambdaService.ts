import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ConcurrencyPool, DEFAULT_ACCOUNT_CONCURRENCY } from './concurrency.js';

const RUNTIME = fileURLToPath(new URL('./runtime.mjs', import.meta.url));
/** Lambda's limit on a synchronous invocation's request and response payloads. */
export const PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;
/** An environment left unused this long is reaped, as Lambda does (it takes minutes there too). */
const IDLE_REAP_MS = 5 * 60_000;

export interface LambdaFunctionSpec {
  name: string;
  arn: string;
  /** The code folder (the asset) and `file.export`. */
  codeDir: string;
  handler: string;
  environment: Record<string, string>;
  timeoutMs: number;
  memoryMb: number;
  /** The template's runtime (`nodejs24.x`); the emulation runs it on this machine's Node. */
  runtime: string;
  /** The template's ReservedConcurrentExecutions: at most this many at once, carved out of the account's pool. */
  reservedConcurrency?: number;
}

/** Lambda's error for a throttled invocation (HTTP 429), whatever the function's code. */
export const THROTTLED = 'TooManyRequestsException';

/** A function error, as Lambda reports it (`Unhandled`, or a timeout). */
export class LambdaInvocationError extends Error {
  override name = 'LambdaInvocationError';
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
  ) {
    super(`${functionName}: ${errorType}: ${message}`);
  }
}

interface Environment {
  child: ChildProcess;
  frozen: boolean;
  /** Killed (a timeout, a crash): never handed another invocation. */
  dead: boolean;
  idleSince: number;
  pending?: { id: string; settle: (reply: Reply) => void };
}

type Reply = { type: 'result'; result: unknown } | { type: 'error'; error: { errorType: string; errorMessage: string } } | { type: 'exit'; detail: string };

/**
 * Lambda, emulated: each function runs in execution environments (processes) that handle one
 * invocation at a time; a concurrent invocation gets another environment, a cold start. When
 * a handler returns, its environment is frozen (SIGSTOP) until its next invocation (SIGCONT),
 * so timers, sockets and promises left behind stop exactly as they do on AWS. A handler that
 * runs past the function's timeout has its environment killed. Invocations past the account's
 * concurrency, or past a function's reservation, are throttled (concurrency.ts).
 */
export class LambdaService {
  private readonly functions = new Map<string, LambdaFunctionSpec>();
  private readonly idle = new Map<string, Environment[]>();
  private readonly all = new Set<Environment>();
  private readonly reaper: NodeJS.Timeout;
  private readonly concurrency: ConcurrencyPool;
  private closed = false;

  constructor(
    /** Settings every function gets (endpoints of the emulated services, credentials). */
    private readonly baseEnvironment: Record<string, string>,
    /** Where each function's output goes (CloudWatch Logs on AWS). */
    private readonly logFile: (functionName: string) => string,
    /** The account's quota "Lambda concurrent executions"; the emulation sets it low to reach it in seconds. */
    accountConcurrency: number = DEFAULT_ACCOUNT_CONCURRENCY,
    /** Told of each invocation that ran (a cold start's init included, as Lambda bills it), throttled ones not. */
    private readonly onInvoked: (spec: LambdaFunctionSpec, durationMs: number) => void = () => undefined,
    /** Asked as each handler returns: true kills its environment before the answer goes back (a fault injected: emulator/faults.ts). */
    private readonly killsAfterHandler: (functionName: string) => boolean = () => false,
  ) {
    this.concurrency = new ConcurrencyPool(accountConcurrency);
    this.reaper = setInterval(() => this.reap(), 30_000);
    this.reaper.unref();
  }

  register(spec: LambdaFunctionSpec): void {
    this.concurrency.reserve(spec.name, spec.reservedConcurrency);
    this.functions.set(spec.name, spec);
  }

  has(name: string): boolean {
    return this.functions.has(name);
  }

  /** A synchronous invocation (RequestResponse): the handler's result, or a LambdaInvocationError. */
  async invoke(name: string, event: unknown): Promise<unknown> {
    const spec = this.functions.get(name);
    if (!spec) throw new Error(`No Lambda function ${name}`);
    // An event that arrives while the emulator shuts down (an ECS task stopped by the teardown)
    // must not start an environment whose log folder is about to be removed.
    if (this.closed) throw new LambdaInvocationError(name, 'ServiceException', 'The Lambda service has stopped');
    if (Buffer.byteLength(JSON.stringify(event)) > PAYLOAD_LIMIT_BYTES) {
      throw new LambdaInvocationError(
        name,
        'RequestEntityTooLargeException',
        `Request must be smaller than ${PAYLOAD_LIMIT_BYTES} bytes for the InvokeFunction operation`,
      );
    }
    if (!this.concurrency.acquire(name)) {
      const reason = spec.reservedConcurrency === undefined ? 'ConcurrentInvocationLimitExceeded' : 'ReservedFunctionConcurrentInvocationLimitExceeded';
      throw new LambdaInvocationError(name, THROTTLED, `Rate Exceeded. (${reason})`);
    }
    const started = performance.now();
    try {
      return await this.run(spec, event);
    } finally {
      this.concurrency.release(name);
      this.onInvoked(spec, performance.now() - started);
    }
  }

  /** One invocation in an environment, the concurrency for it taken. */
  private async run(spec: LambdaFunctionSpec, event: unknown): Promise<unknown> {
    const { name } = spec;
    const environment = this.idle.get(name)?.pop() ?? (await this.coldStart(spec));
    const id = randomUUID();
    const reply = new Promise<Reply>((resolve) => {
      environment.pending = { id, settle: resolve };
    });
    const timer = setTimeout(() => {
      environment.pending?.settle({
        type: 'error',
        error: { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${(spec.timeoutMs / 1000).toFixed(2)} seconds` },
      });
      this.destroy(environment);
    }, spec.timeoutMs);
    if (environment.frozen) {
      environment.child.kill('SIGCONT');
      environment.frozen = false;
    }
    environment.child.send({ id, event, requestId: id, functionArn: spec.arn, deadline: Date.now() + spec.timeoutMs });
    let outcome = await reply;
    clearTimeout(timer);
    if (outcome.type !== 'exit' && !environment.dead && this.killsAfterHandler(name)) {
      // The handler's work is done; the environment dies as a crash would, and its exit is the answer.
      outcome = await new Promise<Reply>((resolve) => {
        environment.pending = { id, settle: resolve };
        this.destroy(environment);
      });
    }
    environment.pending = undefined;
    if (outcome.type === 'exit') {
      this.destroy(environment);
      throw new LambdaInvocationError(name, 'Runtime.ExitError', outcome.detail);
    }
    if (!environment.dead && !this.closed) this.freeze(name, environment);
    if (outcome.type === 'error') throw new LambdaInvocationError(name, outcome.error.errorType, outcome.error.errorMessage);
    if (Buffer.byteLength(JSON.stringify(outcome.result)) > PAYLOAD_LIMIT_BYTES) {
      throw new LambdaInvocationError(
        name,
        'ResponseSizeTooLarge',
        `Response payload size exceeded maximum allowed payload size (${PAYLOAD_LIMIT_BYTES} bytes).`,
      );
    }
    return outcome.result;
  }

  /** Stops every environment. */
  close(): void {
    this.closed = true;
    clearInterval(this.reaper);
    for (const environment of this.all) this.destroy(environment);
  }

  private freeze(name: string, environment: Environment): void {
    environment.child.kill('SIGSTOP');
    environment.frozen = true;
    environment.idleSince = Date.now();
    this.idle.set(name, [...(this.idle.get(name) ?? []), environment]);
  }

  private async coldStart(spec: LambdaFunctionSpec): Promise<Environment> {
    const log = createWriteStream(this.logFile(spec.name), { flags: 'a' });
    // Losing a log line (its folder removed at teardown) must not crash the emulator.
    log.on('error', () => undefined);
    const child = fork(RUNTIME, [], {
      cwd: spec.codeDir,
      env: {
        ...this.baseEnvironment,
        ...spec.environment,
        LAMBDA_TASK_ROOT: spec.codeDir,
        _HANDLER: spec.handler,
        AWS_LAMBDA_FUNCTION_NAME: spec.name,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
        AWS_EXECUTION_ENV: `AWS_Lambda_${spec.runtime}`,
        NODE_OPTIONS: `--max-old-space-size=${Math.floor(spec.memoryMb * 0.9)}`,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const environment: Environment = { child, frozen: false, dead: false, idleSince: Date.now() };
    // Sending to an environment that died meanwhile fails; its exit settles the invocation.
    child.on('error', () => undefined);
    this.all.add(environment);
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message: { type: string; id?: string; result?: unknown; error?: { errorType: string; errorMessage: string } }) => {
        if (message.type === 'ready') return resolve();
        if (message.type === 'init_error') return reject(new LambdaInvocationError(spec.name, 'Runtime.ImportModuleError', message.error?.errorMessage ?? ''));
        const pending = environment.pending;
        if (pending && pending.id === message.id) pending.settle(message as Reply);
      });
      child.on('exit', (code, signal) => {
        environment.dead = true;
        this.forget(environment, log);
        const detail = `RequestId: ${environment.pending?.id ?? '-'} Error: Runtime exited ${signal ? `with signal: ${signal}` : `with error: exit status ${code}`}`;
        environment.pending?.settle({ type: 'exit', detail });
        reject(new LambdaInvocationError(spec.name, 'Runtime.ExitError', detail));
      });
    });
    return environment;
  }

  private forget(environment: Environment, log: WriteStream): void {
    this.all.delete(environment);
    for (const [name, list] of this.idle)
      this.idle.set(
        name,
        list.filter((candidate) => candidate !== environment),
      );
    log.end();
  }

  private destroy(environment: Environment): void {
    environment.dead = true;
    environment.child.kill('SIGKILL');
  }

  private reap(): void {
    for (const list of this.idle.values()) {
      for (const environment of list) if (Date.now() - environment.idleSince > IDLE_REAP_MS) this.destroy(environment);
    }
  }
}
