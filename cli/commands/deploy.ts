import type { BuildStatus } from '../../shared/domain/buildStatus.js';
import type { WireVersion } from '../../shared/domain/wire/version.js';
import { packFiles } from '../../shared/packaging/packDirectory.js';
import type { ClientSettings } from '../client.js';
import { callApi, CliError } from '../client.js';
import { readCode } from '../deployCode.js';
import type { DeployWait } from '../deployWait.js';
import { DEFAULT_DEPLOY_WAIT } from '../deployWait.js';
import { formatDuration } from '../duration.js';
import type { LogLine } from '../follow/logPages.js';
import { readLogsFrom } from '../follow/logPages.js';
import { buildTimeline } from '../buildTimeline.js';
import { stuckBuildHints } from '../stuckBuildHints.js';
import { uploadBundle } from '../uploadBundle.js';

const POLL_MS = 300;

interface DeployOutput {
  version: WireVersion;
}

interface FollowedBuild {
  version: WireVersion;
  /** The wait ran out with the version still building; how long it had printed nothing new. */
  stuck: { quietMs: number } | null;
}

/**
 * `sluice deploy [PATH]`: reads the functions PATH (a folder, or one .py file) declares, uploads
 * the code once (an upload, whatever its size), deploys each function from it, and follows each
 * build through its states, printing its log as it goes, for at most `wait.timeoutMs` a version.
 */
export async function deployCommand(
  target: string,
  settings: ClientSettings,
  python: string,
  print: (line: string) => void,
  wait: DeployWait = DEFAULT_DEPLOY_WAIT,
): Promise<void> {
  const code = await readCode(target, python);
  for (const warning of code.warnings) print(`! ${warning}`);
  const { name: owner } = await callApi<{ name: string }>(settings, 'GET', '/v2/organization');
  const inspected = code.functions;
  const uploadId = await uploadBundle(settings, await packFiles(code.root, code.files));
  let failures = 0;
  let stuck = 0;
  for (const metadata of inspected as { name: string }[]) {
    const path = `/v2/functions/${encodeURIComponent(owner)}/${encodeURIComponent(metadata.name)}`;
    const { version } = await callApi<DeployOutput>(settings, 'POST', `${path}/versions`, { metadata, upload_id: uploadId });
    print(`Deploying ${owner}/${metadata.name}, version ${version.id}`);
    const followed = await followBuild(settings, path, version.id, print, wait);
    const final = followed.version;
    if (followed.stuck) {
      stuck += 1;
      print(
        `✗ ${owner}/${metadata.name} is still ${final.build_status} after ${formatDuration(wait.timeoutMs)}, with no new log line for ${formatDuration(followed.stuck.quietMs)} (version ${final.id})`,
      );
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
    ...(stuck > 0
      ? [
          `${stuck} version${stuck > 1 ? 's' : ''} did not finish within ${formatDuration(wait.timeoutMs)} (--timeout); ${stuck > 1 ? 'their builds go' : 'its build goes'} on without sluice deploy: the lines above say where to look.`,
        ]
      : []),
  ];
  if (problems.length > 0) throw new CliError(problems.join(' '));
}

async function followBuild(
  settings: ClientSettings,
  functionPath: string,
  versionId: string,
  print: (line: string) => void,
  wait: DeployWait,
): Promise<FollowedBuild> {
  const startedAt = Date.now();
  let status: BuildStatus | '' = '';
  let logsFrom = '0';
  let changedAt = startedAt;
  let hinted = false;
  for (;;) {
    const version = await callApi<WireVersion>(settings, 'GET', `${functionPath}/versions/${versionId}`);
    const lines: LogLine[] = [];
    const nextLogsFrom = await readLogsFrom(settings, `version_id=${versionId}`, logsFrom, (line) => lines.push(line));
    for (const event of buildTimeline(status, version, lines)) print('state' in event ? `  ${event.state}` : `  | ${event.line.message}`);
    const now = Date.now();
    if (version.build_status !== status || nextLogsFrom !== logsFrom) {
      changedAt = now;
      hinted = false;
    }
    logsFrom = nextLogsFrom;
    status = version.build_status;
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
