import { chmod, chown, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerReplicaProcess } from '../../../handlers/worker/replicaProcess.js';
import { openReplicaOwnedFile } from '../../../handlers/worker/replicaOwnedFiles.js';
import { workerSettings } from '../../../handlers/worker/workerSettings.js';
import { Replica } from '../../../shared/runtime/replica.js';
import { aJob, aVersion } from '../../support/fixtures.js';
import { pythonDir } from '../../support/replicaHarness.js';

/** The nobody user: what the image's unprivileged user stands for here. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** A task's environment as ECS gives it: the task role's credentials, the agent's endpoints, the service's settings. */
const TASK_ENV = {
  PATH: '/opt/venv/bin:/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  NVIDIA_VISIBLE_DEVICES: '0',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/5f3c-task-role',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.2/v2/credentials/5f3c',
  AWS_CONTAINER_AUTHORIZATION_TOKEN: 'token',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'session',
  AWS_REGION: 'eu-west-1',
  AWS_EXECUTION_ENV: 'AWS_ECS_EC2',
  ECS_CONTAINER_METADATA_URI_V4: 'http://169.254.170.2/v4/abc',
  ECS_AGENT_URI: 'http://169.254.170.2/api/abc',
  SLUICE_TABLE_PREFIX: 'prod-',
  SLUICE_VERSION_ID: 'version-1',
};

const SOURCE = `import ctypes, os, subprocess, threading, time
import sluice

@sluice.function(name="probe")
def probe(what: str) -> dict:
    if what == "env":
        return dict(os.environ)
    if what == "escalate":
        status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
        planted = subprocess.run([os.path.join(os.getcwd(), "rootid"), "-u"], capture_output=True, text=True)
        return {"planted_euid": planted.stdout.strip(), "no_new_privileges": status["NoNewPrivs"].strip(), "effective_capabilities": status["CapEff"].strip()}
    if what == "logs":
        libc = ctypes.CDLL(None)
        def after():
            time.sleep(0.1)
            for i in range(10):
                line = f"after the job {i}\\n".encode()
                libc.write(1, line, len(line))
                time.sleep(0.02)
        threading.Thread(target=after, daemon=True).start()
        os.write(1, b"no newline")
        return {}
    try:
        with open(f"/proc/{os.getppid()}/environ", "rb") as agent:
            return {"read": len(agent.read())}
    except OSError as error:
        return {"error": type(error).__name__}
`;

/** Runs one job of the probe in a real replica started as the AWS worker starts it, and returns its output. */
async function runProbe(
  codeDir: string,
  what: string,
  replicaUid?: number,
  onLine: (line: string) => void = () => undefined,
  afterJob = async () => undefined,
): Promise<Record<string, unknown>> {
  const settings = workerSettings({
    ...TASK_ENV,
    // The system interpreter: the nobody user can run it.
    SLUICE_WORKER_PYTHON: asRoot ? '/usr/bin/python3' : 'python3',
    SLUICE_WORKER_CODE_DIR: codeDir,
    SLUICE_WORKER_SDK_DIR: pythonDir,
    ...(replicaUid === undefined ? {} : { SLUICE_REPLICA_UID: String(replicaUid), SLUICE_REPLICA_GID: String(replicaUid) }),
  });
  const version = aVersion({ entrypoint: { file: 'main.py', symbol: 'probe', kind: 'function', generator: false } });
  const replica = new Replica({ id: 'r1', ...workerReplicaProcess(settings, version, TASK_ENV), onLine, onExit: () => undefined });
  try {
    await replica.ready;
    const outputs: unknown[] = [];
    const outcome = await replica.runJob(
      { jobId: 'job-1', runId: 'run-1', inputs: { what }, env: {}, maxOutputBytes: 1_000_000 },
      { onOutput: (message) => outputs.push(message.value), onCall: () => Promise.reject(new Error('no calls')) },
    );
    expect(outcome).toEqual({ kind: 'done' });
    await afterJob();
    return outputs[0] as Record<string, unknown>;
  } finally {
    replica.kill();
  }
}

describe('the AWS worker’s replicas', () => {
  let codeDir: string;
  beforeAll(async () => {
    codeDir = await mkdtemp(join(tmpdir(), 'sluice-worker-replica-'));
    await chmod(codeDir, 0o755);
    await writeFile(join(codeDir, 'main.py'), SOURCE);
  });
  afterAll(() => rm(codeDir, { recursive: true, force: true }));

  it('get none of the task’s AWS credentials, ECS agent endpoints or service settings, only what they need to run', async () => {
    const env = await runProbe(codeDir, 'env');
    const names = Object.keys(env);
    expect(names.filter((name) => /^(AWS_|ECS_)/.test(name))).toEqual([]);
    // The runtime's own: where the code is, and the job it runs.
    expect(names.filter((name) => name.startsWith('SLUICE_')).sort()).toEqual([
      'SLUICE_ENTRY_FILE',
      'SLUICE_ENTRY_KIND',
      'SLUICE_ENTRY_SYMBOL',
      'SLUICE_JOB_ID',
    ]);
    expect(JSON.stringify(env)).not.toMatch(/credentials|AKIAEXAMPLE|169\.254\.170\.2/);
    expect(env).toMatchObject({ PATH: TASK_ENV.PATH, LANG: 'C.UTF-8', NVIDIA_VISIBLE_DEVICES: '0', SLUICE_ENTRY_SYMBOL: 'probe' });
  });

  it('end a job’s log at its end marker even after a write that left its line unfinished, and drop what native code writes after the job returned', async () => {
    const lines: string[] = [];
    await runProbe(
      codeDir,
      'logs',
      undefined,
      (line) => lines.push(line),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 500)); // the thread writes for 0.3 s after the job
      },
    );
    // The marker was found where the unfinished line ended (not glued to it), and nothing came after.
    expect(lines).toEqual(['no newline']);
  });

  it.runIf(asRoot)('run as the image’s user, which cannot read the agent’s environment (/proc/<agent>/environ)', async () => {
    expect(await runProbe(codeDir, 'agent', NOBODY)).toEqual({ error: 'PermissionError' });
    // The same probe as the agent's own user does read it: the user is what keeps it out.
    expect(await runProbe(codeDir, 'agent')).toEqual({ read: expect.any(Number) });
  });

  it.runIf(asRoot)('gain no privileges from a setuid-root file the image left: no new privileges, no capabilities', async () => {
    // What a run_command could leave if the image's strip of setuid bits missed a file.
    const planted = join(codeDir, 'rootid');
    await copyFile('/usr/bin/id', planted);
    await chown(planted, 0, 0);
    await chmod(planted, 0o4755);
    expect(await runProbe(codeDir, 'escalate', NOBODY)).toEqual({
      planted_euid: String(NOBODY),
      no_new_privileges: '1',
      effective_capabilities: '0000000000000000',
    });
  });
});

describe('file outputs of the AWS worker’s replicas', () => {
  let dir: string;
  const stored: string[] = [];
  const openOutput = openReplicaOwnedFile(NOBODY);
  /** What the pool does with a file output: open it through the check, then store what was opened. */
  const store = async (_job: unknown, _index: number, path: string, name: string) => {
    const opened = await openOutput(path);
    if (!opened) throw new Error(`${name}: a file output must be a regular file the function wrote`);
    try {
      stored.push(await readFile(opened.path, 'utf8'));
    } finally {
      await opened.close();
    }
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-worker-files-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.runIf(asRoot)('are stored when the replica’s user wrote them', async () => {
    const path = join(dir, 'result.txt');
    await writeFile(path, 'made by the function');
    await chown(path, NOBODY, NOBODY);
    await store(aJob(), 0, path, 'result.txt');
    expect(stored).toEqual(['made by the function']);
  });

  it('are refused when they name a file the replica could not read itself, such as the agent’s environment', async () => {
    await expect(store(aJob(), 0, '/proc/self/environ', 'environ')).rejects.toThrow('environ: a file output must be a regular file the function wrote');
    const secret = join(dir, 'agent-only');
    await writeFile(secret, 'root only', { mode: 0o600 });
    await expect(store(aJob(), 1, secret, 'x')).rejects.toThrow('a file output must be a regular file the function wrote');
    expect(stored).not.toContain('root only');
  });
});
