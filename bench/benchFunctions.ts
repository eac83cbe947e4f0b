// Deploying the aws section's functions and timing a first output, the same on either mode.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uploadBundle } from '../cli/uploadBundle.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import type { createJsonClient } from './httpClient.js';
import { wallMs } from './stats.js';

export type JsonCall = ReturnType<typeof createJsonClient>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Python function with no packages: `noop` returns nothing, `first-output` one short string. */
export function pythonFunction(name: string, minimum: number, maximum: number, returns = 'None'): string {
  return `import sluice

@sluice.function(name="${name}", minimum_replicas=${minimum}, maximum_replicas=${maximum})
def ${name.replace(/-/g, '_')}() -> ${returns === 'None' ? 'None' : 'str'}:
    return ${returns}
`;
}

/** Deploys `source` as local/<name> through an upload, and waits for the version to be ready. */
export async function deployFunction(target: { url: string; key: string; call: JsonCall }, workDir: string, name: string, source: string): Promise<void> {
  const directory = join(workDir, name);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'main.py'), source);
  const inspected = await inspectFunctions(directory, 'python3');
  if (!inspected.ok) throw new Error(inspected.errors.join('; '));
  const bundle = await uploadBundle({ url: target.url, apiKey: target.key }, await packDirectory(directory));
  const deployed = await target.call<{ version: { id: string } }>('POST', `/v2/functions/local/${name}/versions`, {
    metadata: inspected.functions[0],
    upload_id: bundle,
  });
  if (deployed.status >= 300) throw new Error(`deploying ${name}: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  for (;;) {
    const version = (await target.call<WireVersion>('GET', `/v2/functions/local/${name}/versions/${deployed.body.version.id}`)).body;
    if (version.build_status === 'ready') return;
    if (version.build_status === 'error') {
      const logs = await target.call('GET', `/v2/logs?version_id=${version.id}`);
      throw new Error(`${name} failed to build: ${JSON.stringify(version)} ${JSON.stringify(logs.body).slice(-600)}`);
    }
    await sleep(200);
  }
}

/** Pushes a job of local/<name> and awaits its end, asking again past the await route's timeout. */
export async function pushAndAwait(call: JsonCall, name: string, extra: Record<string, unknown> = {}): Promise<WireJob> {
  const pushed = await call<{ id: string }>('POST', '/v2/push', { function: `local/${name}`, inputs: {}, ...extra });
  if (pushed.status >= 300) throw new Error(`push: ${pushed.status} ${JSON.stringify(pushed.body)}`);
  for (;;) {
    const answer = await call<WireJob>('GET', `/v2/jobs/${pushed.body.id}/await`);
    if (answer.status === 200 && answer.body.status !== 'queued' && answer.body.status !== 'processing') {
      if (answer.body.status !== 'finished') throw new Error(`job ${pushed.body.id} ended ${answer.body.status}: ${answer.body.error}`);
      return answer.body;
    }
  }
}

/** Milliseconds from a push of local/<name> to its first output showing on GET /v2/jobs/{id}, and when the push was sent. */
export async function pushToFirstOutput(call: JsonCall, name: string): Promise<{ sentAt: number; ms: number }> {
  const sentAt = wallMs();
  const { id } = (await call<{ id: string }>('POST', '/v2/push', { function: `local/${name}`, inputs: {} })).body;
  for (;;) {
    const job = (await call<WireJob>('GET', `/v2/jobs/${id}`)).body;
    if ((job.outputs?.length ?? 0) > 0) return { sentAt, ms: wallMs() - sentAt };
    if (job.status === 'error' || job.status === 'cancelled') throw new Error(`job ${id} ended ${job.status}: ${job.error}`);
    await sleep(50);
  }
}
