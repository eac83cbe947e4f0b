import { resolve } from 'node:path';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import type { WireLogPage } from '../../shared/domain/wire/logPage.js';
import { inspectFunctions } from '../../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../../shared/packaging/packDirectory.js';
import type { ClientSettings } from '../client.js';
import { callApi, CliError } from '../client.js';
import { formatDuration } from '../duration.js';
import { stuckBuildHints } from '../stuckBuildHints.js';
import { uploadBundle } from '../uploadBundle.js';

const POLL_MS = 300;

export interface DeployWait {
  /** How long to follow one version's build before giving up on it (the build goes on). */
  timeoutMs: number;
  /** A version in one state with no new log line this long gets a hint of where to look. */
  stallMs: number;
}

/** An hour covers a large CUDA image's first build; a stall hint after five quiet minutes. */
export const DEFAULT_DEPLOY_WAIT: DeployWait = { timeoutMs: 60 * 60_000, stallMs: 5 * 60_000 };

interface DeployOutput {
  version: WireVersion;
}

interface FollowedBuild {
  version: WireVersion;
  /** The wait ran out with the version still building; how long it had printed nothing new. */
  stuck: { quietMs: number } | null;
}

/**
 * `sluice deploy [DIR]`: reads the functions DIR declares, uploads the code once (an upload,
 * whatever its size), deploys each function from it, and follows each build through its
 * states, printing its log as it goes, for at most `wait.timeoutMs` a version.
 */
export async function deployCommand(directory: string, settings: ClientSettings, python: string, print: (line: string) => void, wait: DeployWait = DEFAULT_DEPLOY_WAIT): Promise<void> {
  const root = resolve(directory);
  const inspected = await inspectFunctions(root, python);
  if (!inspected.ok) throw new CliError(`Cannot deploy ${root}:\n${inspected.errors.map((e) => `  ${e}`).join('\n')}`);
  const { name: owner } = await callApi<{ name: string }>(settings, 'GET', '/v2/organization');
  const uploadId = await uploadBundle(settings, await packDirectory(root));
  let failures = 0;
  let stuck = 0;
  for (const metadata of inspected.functions as { name: string }[]) {
    const path = `/v2/functions/${encodeURIComponent(owner)}/${encodeURIComponent(metadata.name)}`;
    const { version } = await callApi<DeployOutput>(settings, 'POST', `${path}/versions`, { metadata, upload_id: uploadId });
    print(`Deploying ${owner}/${metadata.name}, version ${version.id}`);
    const followed = await followBuild(settings, path, version.id, print, wait);
    const final = followed.version;
    if (followed.stuck) {
      stuck += 1;
      print(`✗ ${owner}/${metadata.name} is still ${final.build_status} after ${formatDuration(wait.timeoutMs)}, with no new log line for ${formatDuration(followed.stuck.quietMs)} (version ${final.id})`);
      for (const hint of stuckBuildHints(final.build_status, path, final.id)) print(`    ${hint}`);
    } else if (final.build_status === 'ready') {
      print(`✓ ${owner}/${metadata.name} is ready: version ${final.id}`);
    } else {
      failures += 1;
      print(`✗ ${owner}/${metadata.name} failed to build (version ${final.id})`);
    }
  }
  const problems = [
    ...(failures > 0 ? [`${failures} build${failures > 1 ? 's' : ''} failed; the log lines above say why.`] : []),
    ...(stuck > 0 ? [`${stuck} version${stuck > 1 ? 's' : ''} did not finish within ${formatDuration(wait.timeoutMs)} (--timeout); ${stuck > 1 ? 'their builds go' : 'its build goes'} on without sluice deploy: the lines above say where to look.`] : []),
  ];
  if (problems.length > 0) throw new CliError(problems.join(' '));
}

async function followBuild(settings: ClientSettings, functionPath: string, versionId: string, print: (line: string) => void, wait: DeployWait): Promise<FollowedBuild> {
  const startedAt = Date.now();
  let status = '';
  let logsFrom = '0';
  let changedAt = startedAt;
  let hinted = false;
  for (;;) {
    const version = await callApi<WireVersion>(settings, 'GET', `${functionPath}/versions/${versionId}`);
    const nextLogsFrom = await printNewLogLines(settings, versionId, logsFrom, print);
    const now = Date.now();
    if (version.build_status !== status || nextLogsFrom !== logsFrom) {
      changedAt = now;
      hinted = false;
    }
    logsFrom = nextLogsFrom;
    if (version.build_status !== status) {
      status = version.build_status;
      print(`  ${status}`);
    }
    if (status === 'ready' || status === 'error') return { version, stuck: null };
    if (now - startedAt >= wait.timeoutMs) return { version, stuck: { quietMs: now - changedAt } };
    if (!hinted && now - changedAt >= wait.stallMs) {
      hinted = true;
      print(`  … still ${status}, no new log line for ${formatDuration(now - changedAt)}:`);
      for (const hint of stuckBuildHints(status, functionPath, versionId)) print(`    ${hint}`);
    }
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
