import { resolve } from 'node:path';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import type { WireLogPage } from '../../shared/domain/wire/logPage.js';
import { inspectFunctions } from '../../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../../shared/packaging/packDirectory.js';
import type { ClientSettings } from '../client.js';
import { callApi, CliError } from '../client.js';
import { uploadBundle } from '../uploadBundle.js';

const POLL_MS = 300;

interface DeployOutput {
  version: WireVersion;
}

/**
 * `sluice deploy [DIR]`: reads the functions DIR declares, uploads the code once (an upload,
 * whatever its size), deploys each function from it, and follows each build through its
 * states, printing its log as it goes.
 */
export async function deployCommand(directory: string, settings: ClientSettings, python: string, print: (line: string) => void): Promise<void> {
  const root = resolve(directory);
  const inspected = await inspectFunctions(root, python);
  if (!inspected.ok) throw new CliError(`Cannot deploy ${root}:\n${inspected.errors.map((e) => `  ${e}`).join('\n')}`);
  const { name: owner } = await callApi<{ name: string }>(settings, 'GET', '/v2/organization');
  const uploadId = await uploadBundle(settings, await packDirectory(root));
  let failures = 0;
  for (const metadata of inspected.functions as { name: string }[]) {
    const path = `/v2/functions/${encodeURIComponent(owner)}/${encodeURIComponent(metadata.name)}`;
    const { version } = await callApi<DeployOutput>(settings, 'POST', `${path}/versions`, { metadata, upload_id: uploadId });
    print(`Deploying ${owner}/${metadata.name}, version ${version.id}`);
    const final = await followBuild(settings, path, version.id, print);
    if (final.build_status === 'ready') {
      print(`✓ ${owner}/${metadata.name} is ready: version ${final.id}`);
    } else {
      failures += 1;
      print(`✗ ${owner}/${metadata.name} failed to build (version ${final.id})`);
    }
  }
  if (failures > 0) throw new CliError(`${failures} build${failures > 1 ? 's' : ''} failed; the log lines above say why.`);
}

async function followBuild(settings: ClientSettings, functionPath: string, versionId: string, print: (line: string) => void): Promise<WireVersion> {
  let status = '';
  let logsFrom = '0';
  for (;;) {
    const version = await callApi<WireVersion>(settings, 'GET', `${functionPath}/versions/${versionId}`);
    logsFrom = await printNewLogLines(settings, versionId, logsFrom, print);
    if (version.build_status !== status) {
      status = version.build_status;
      print(`  ${status}`);
    }
    if (status === 'ready' || status === 'error') return version;
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}

/** Prints the build log lines from `from` (nanoseconds) on; returns where the next read starts. */
async function printNewLogLines(settings: ClientSettings, versionId: string, from: string, print: (line: string) => void): Promise<string> {
  let start = from;
  for (;;) {
    const page = await callApi<WireLogPage>(settings, 'GET', `/v2/logs?version_id=${versionId}&start_time=${start}`);
    for (const group of page.data) for (const line of group.logs) print(`  | ${line.message}`);
    if (page.data.length === 0) return start;
    // next_start_time passes 2^53 and JSON.parse rounds it; last_time_returned is exact.
    start = String(BigInt(page.last_time_returned) + 1n);
  }
}
