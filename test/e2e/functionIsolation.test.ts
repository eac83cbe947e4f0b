import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

// These specs attack the real service with hostile functions. They need bubblewrap
// (apt-get install bubblewrap), as a production service does: SLUICE_SANDBOX=bwrap refuses
// to start without it, so a machine lacking it fails here rather than passing unconfined.

/** Tries to read what a function must never see, and names what it could read. */
const SNOOP = `import glob, os
import sluice

@sluice.function(name="snoop")
def snoop(data_dir: str, other_code: str, canary: str) -> dict:
    tried, found = [], []
    def attempt(what, read):
        tried.append(what)
        try:
            if read():
                found.append(what)
        except Exception:
            pass
    def environments():
        for path in glob.glob("/proc/*/environ"):
            try:
                if canary.encode() in open(path, "rb").read():
                    return True
            except OSError:
                pass
        return False
    # Its own code and environment are mounted under the data directory's path: nothing else of it shows.
    own_code = os.path.realpath("main.py")
    attempt("the data directory", lambda: set(os.listdir(data_dir)) - {"versions", "envs", "scratch", "inputs"})
    attempt("another version", lambda: [v for v in os.listdir(os.path.join(data_dir, "versions")) if v not in own_code])
    attempt("another replica's folders", lambda: [r for r in os.listdir(os.path.join(data_dir, "scratch", "replicas")) if r not in os.getcwd()])
    attempt("another replica's inputs", lambda: len(os.listdir(os.path.join(data_dir, "inputs"))) > 1)
    attempt("the SQLite store", lambda: open(os.path.join(data_dir, "sluice.db"), "rb").read(16))
    attempt("the bootstrap key", lambda: open(os.path.join(data_dir, "api-key")).read())
    attempt("another organization's code", lambda: open(other_code).read())
    attempt("the service's environment", lambda: canary in str(os.environ))
    attempt("another process's environment", environments)
    attempt("the service's checkout", lambda: os.listdir(os.path.join(os.path.dirname(sluice.__file__), "..", "..", "shared")))
    # What a function may do: write its scratch space, read its own code.
    with open("/tmp/scratch.txt", "w") as out:
        out.write("mine")
    with open(os.path.join(os.environ["HOME"], "home.txt"), "w") as out:
        out.write("mine")
    with open("result.txt", "w") as out:
        out.write("next to the code, as Sieve's functions write")
    return {"tried": tried, "found": found, "own_code": os.path.exists("main.py") and os.path.exists("result.txt")}
`;

/**
 * Tries to gain privileges: a setuid-root copy of \`id\` planted by its build command, the
 * capabilities of the sandbox's root, a read-only mount made writable again.
 */
const ESCALATE = `import os, subprocess, sys
import sluice

PLANTED = os.path.join(sys.prefix, "bin", "rootid")

@sluice.function(name="escalate", run_commands=["cp /usr/bin/id $VIRTUAL_ENV/bin/rootid && chmod u+s,g+s $VIRTUAL_ENV/bin/rootid"])
def escalate() -> dict:
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    remount = subprocess.run(["mount", "-o", "remount,rw,bind", sys.prefix], capture_output=True)
    return {
        "set_id_bits": oct(os.stat(PLANTED).st_mode & 0o6000),
        "planted_euid": subprocess.run([PLANTED, "-u"], capture_output=True, text=True).stdout.strip(),
        "own_euid": str(os.geteuid()),
        "effective_capabilities": status["CapEff"].strip(),
        "no_new_privileges": status["NoNewPrivs"].strip(),
        "remounted_writable": remount.returncode == 0,
    }
`;

/** Hands out a file of the service's by talking the replica protocol itself. */
const SMUGGLE = `import json, os, socket, time
import sluice

@sluice.function(name="smuggle")
def smuggle(path: str) -> None:
    channel = socket.socket(fileno=os.dup(3))
    message = {"type": "output", "job_id": os.environ["SLUICE_JOB_ID"], "index": 0, "file": path, "name": "loot"}
    channel.sendall((json.dumps(message) + "\\n").encode())
    time.sleep(0.5)
`;

const SECRET_CODE = `import sluice

SECRET = "the other organization's secret"

@sluice.function(name="private")
def private() -> str:
    return SECRET
`;

/** Starts a child and a double-forked daemon (a session of its own), both carrying the token in their command line. */
const SPAWNER = `import subprocess, sys, time
import sluice

DAEMON = "import os, sys, time\\nif os.fork(): sys.exit(0)\\nos.setsid()\\nif os.fork(): sys.exit(0)\\ntime.sleep(1000)"

@sluice.function(name="spawner")
def spawner(token: str, daemon: bool = True, stay: bool = True):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)", token])
    if daemon:
        subprocess.Popen([sys.executable, "-c", DAEMON, token]).wait()
    yield "started"
    while stay:
        time.sleep(1)
`;

/** Leaves a thread, and a process writing straight to the log's file descriptor, printing after it returns. */
const LINGER = `import os, subprocess, threading, time
import sluice

@sluice.function(name="linger")
def linger(tag: str, seconds: float = 0) -> str:
    def later():
        for i in range(30):
            print(f"late line of {tag} {i}", flush=True)
            time.sleep(0.05)
    def native():
        # Straight to the file descriptors, past sys.stdout and sys.stderr.
        for i in range(30):
            os.write(1, f"native line of {tag} {i}\\n".encode())
            os.write(2, f"native error of {tag} {i}\\n".encode())
            time.sleep(0.05)
    threading.Thread(target=later, daemon=True).start()
    threading.Thread(target=native, daemon=True).start()
    subprocess.Popen(["sh", "-c", f"for i in 1 2 3 4 5 6 7 8 9 10; do echo late child of {tag} $i; sleep 0.1; done"])
    print(f"{tag} returns", flush=True)
    time.sleep(seconds)
    return tag
`;

/** Native code writing to the file descriptors from a thread of its own, past the job's return. */
const SCRIBBLE = `import ctypes, threading, time
import sluice

@sluice.function(name="scribble")
def scribble(tag: str, seconds: float) -> str:
    libc = ctypes.CDLL(None)
    def native():
        deadline = time.time() + seconds
        i = 0
        while time.time() < deadline:
            line = f"c-level line of {tag} {i}\\n".encode()
            libc.write(1, line, len(line))
            libc.write(2, line, len(line))
            i += 1
            time.sleep(0.02)
    threading.Thread(target=native, daemon=True).start()
    time.sleep(0.2)
    return tag
`;

const tokens: string[] = [];

/** A mark for the processes of one spec: a test looks them up by it, and ends them if the service did not. */
function newToken(): string {
  const token = `token-${randomUUID()}`;
  tokens.push(token);
  return token;
}

/** The processes on this machine whose command line holds the token. */
async function pidsWith(token: string): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(join('/proc', pid, 'cmdline'), 'utf8').catch(() => '');
    if (cmdline.includes(token)) pids.push(Number(pid));
  }
  return pids;
}

const processesWith = async (token: string) => (await pidsWith(token)).length;

afterAll(async () => {
  // A regression must not leave sleepers on the machine.
  for (const token of tokens) {
    for (const pid of await pidsWith(token)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
});

async function deploy(service: TestService, source: string, key = service.key, owner = 'local') {
  const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }), key, owner);
  // A build command makes an environment of its own, Sieve's default packages included: longer.
  const version = await waitForBuild(service, `${owner}/${deployed.body.function.name}`, deployed.body.version.id, key, 180_000);
  expect(version.build_status).toBe('ready');
  return deployed.body.version.id as string;
}

describe('function code in the local mode', () => {
  const canary = `canary-${randomUUID()}`;
  let service: TestService;
  let scribbleVersion: string;
  let otherCode: string;
  const call = (method: string, path: string, body?: unknown) => api(service.url, service.key, method, path, body);
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const { body } = await call('POST', '/v2/push', { function: `local/${fn}`, inputs });
    return (await call('GET', `/v2/jobs/${body.id}/await`)).body;
  };

  beforeAll(async () => {
    // A secret in the service's own environment, as a database password or a cloud key would be.
    process.env.SERVICE_DATABASE_PASSWORD = canary;
    service = await startTestService({ SLUICE_SANDBOX: 'bwrap', SLUICE_IDLE_TIMEOUT_S: '1' });
    const otherKey = await service.createOrganization('other');
    const otherVersion = await deploy(service, SECRET_CODE, otherKey, 'other');
    otherCode = join(service.dataDir, 'versions', otherVersion, 'code', 'main.py');
    for (const source of [SNOOP, SMUGGLE, SPAWNER, LINGER, ESCALATE]) await deploy(service, source);
    scribbleVersion = await deploy(service, SCRIBBLE);
  }, 240_000);
  afterAll(async () => {
    delete process.env.SERVICE_DATABASE_PASSWORD;
    await service.close();
  });

  it('cannot read the data directory, another organization’s code, or the service’s environment', async () => {
    const job = await run('snoop', { data_dir: service.dataDir, other_code: otherCode, canary });
    expect(job.status).toBe('finished');
    const { tried, found, own_code } = job.outputs[0].data;
    expect(tried).toHaveLength(10);
    expect(found).toEqual([]);
    expect(own_code).toBe(true);
  });

  it('gains no privileges: no setuid file from its build, no capabilities, no read-only mount made writable', async () => {
    const job = await run('escalate', {});
    expect(job.status, job.error).toBe('finished');
    expect(job.outputs[0].data).toEqual({
      set_id_bits: '0o0',
      planted_euid: job.outputs[0].data.own_euid,
      own_euid: job.outputs[0].data.own_euid,
      effective_capabilities: '0000000000000000',
      no_new_privileges: '1',
      remounted_writable: false,
    });
  });

  it('cannot hand out a file of the service’s as an output', async () => {
    const job = await run('smuggle', { path: join(service.dataDir, 'sluice.db') });
    expect(job.status).toBe('error');
    expect(job.error).toMatch(/not a file the function may hand out/);
    expect((await call('GET', `/v2/jobs/${job.id}/files/0`)).status).toBe(404);
  });

  it('ends every process a job started, a daemon in its own session included, when the job is cancelled', async () => {
    const token = newToken();
    const { body: pushed } = await call('POST', '/v2/push', { function: 'local/spawner', inputs: { token } });
    await until(async () => (await processesWith(token)) === 2, 10_000);
    expect((await call('DELETE', `/v2/jobs/${pushed.id}`)).status).toBe(200);
    await until(async () => (await processesWith(token)) === 0, 5_000);
  });

  it('ends every process a job started once the job returns, a daemon in its own session included', async () => {
    const token = newToken();
    const job = await run('spawner', { token, stay: false });
    expect(job.status).toBe('finished');
    // Gone with the job, not with the replica (its idle window is longer than this wait).
    await until(async () => (await processesWith(token)) === 0, 800);
  });

  it('keeps what a job’s threads print after it returned out of the next job’s logs, through sys.stdout or os.write on its file descriptors', async () => {
    const first = await run('linger', { tag: 'first' });
    const second = await run('linger', { tag: 'second', seconds: 1 });
    expect(second.status).toBe('finished');
    const logs = async (jobId: string) => {
      const { body } = await call('GET', `/v2/logs?job_id=${jobId}`);
      return body.data.flatMap((group: any) => group.logs.map((entry: any) => entry.message as string));
    };
    const secondLogs = await logs(second.id);
    expect(secondLogs.some((line: string) => line.includes('second returns'))).toBe(true);
    expect(secondLogs.filter((line: string) => line.includes('late line of second')).length).toBeGreaterThan(0);
    expect(secondLogs.filter((line: string) => line.includes('native line of second')).length).toBeGreaterThan(0);
    expect(secondLogs.filter((line: string) => line.includes('native error of second')).length).toBeGreaterThan(0);
    expect(secondLogs.filter((line: string) => line.includes('first'))).toEqual([]);
    expect((await logs(first.id)).some((line: string) => line.includes('first returns'))).toBe(true);
  });

  it('drops what native code writes to the file descriptors between jobs: it reaches no log, the version’s included', async () => {
    const job = await run('scribble', { tag: 'between', seconds: 0.8 });
    expect(job.status).toBe('finished');
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // the thread writes on for 0.6 s, then the log writers flush
    const messages = async (query: string) => {
      const { body } = await call('GET', `/v2/logs?${query}`);
      return body.data.flatMap((group: any) => group.logs.map((entry: any) => entry.message as string)) as string[];
    };
    // While it ran, its native writes were its own.
    expect((await messages(`job_id=${job.id}`)).filter((line) => line.includes('c-level line of between')).length).toBeGreaterThan(0);
    expect((await messages(`version_id=${scribbleVersion}`)).filter((line) => line.includes('c-level line of between'))).toEqual([]);
  });
});

describe('stopping the service', () => {
  it('ends every process its running jobs started', async () => {
    const service = await startTestService({ SLUICE_SANDBOX: 'bwrap' });
    const token = newToken();
    try {
      await deploy(service, SPAWNER);
      await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/spawner', inputs: { token } });
      await until(async () => (await processesWith(token)) === 2, 10_000);
    } finally {
      await service.close();
    }
    await until(async () => (await processesWith(token)) === 0, 5_000);
  }, 30_000);
});

describe('without a sandbox (SLUICE_SANDBOX=off)', () => {
  it('still ends the processes a cancelled job started, through its process group', async () => {
    const service = await startTestService({ SLUICE_SANDBOX: 'off' });
    const token = newToken();
    try {
      await deploy(service, SPAWNER);
      const { body: pushed } = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/spawner', inputs: { token, daemon: false } });
      await until(async () => (await processesWith(token)) === 1, 10_000);
      await api(service.url, service.key, 'DELETE', `/v2/jobs/${pushed.id}`);
      await until(async () => (await processesWith(token)) === 0, 5_000);
    } finally {
      await service.close();
    }
  }, 30_000);
});
