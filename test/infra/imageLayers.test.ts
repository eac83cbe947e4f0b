import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BASE_IMAGES, CACHE_TAG_SCRIPT, imageBuildSpec } from '../../infra/buildspec.js';
import { encodeRunCommands } from '../../shared/domain/runCommands.js';
import { buildEnvironment, writeImage } from './dockerfileScript.js';

const IMAGE_URI = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-functions';

describe('the image layers a version’s build can reuse', () => {
  const work = mkdtempSync(join(tmpdir(), 'sluice-image-layers-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const dependencies = {
    PYTHON_PACKAGES: 'numpy==2.1',
    SYSTEM_PACKAGES: 'ffmpeg',
    RUN_COMMANDS: encodeRunCommands(['echo setup']),
  };
  const lines = (variables: Record<string, string>) => {
    const written = writeImage(work, variables);
    expect(written.status, written.stderr).toBe(0);
    return written.dockerfile.trim().split('\n');
  };
  /** The cache tag CACHE_TAG_SCRIPT names for the image/ folder the last writeImage left. */
  const cacheTag = (versionId: string) => {
    const result = spawnSync('bash', ['-c', CACHE_TAG_SCRIPT], {
      cwd: work,
      env: buildEnvironment({ IMAGE_URI: `${IMAGE_URI}:${versionId}` }),
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    return result.stdout.trim();
  };

  it('puts what changes least first: base image, system packages, Python packages, run_commands, the replica user, node, the worker, and the code last', () => {
    const dockerfile = lines({ ...dependencies, ENTRY_FILE: 'main.py', ENTRY_SYMBOL: 'run' });
    const at = (start: string) => dockerfile.findIndex((line) => line.startsWith(start));
    const order = [
      `FROM ${BASE_IMAGES.PYTHON_IMAGE}:`,
      'RUN apt-get update',
      'RUN pip install requests',
      'RUN if [ -s /tmp/requirements.txt ]',
      'RUN ["/bin/sh", "-c", "echo setup"]',
      'RUN groupadd',
      'COPY --from=node',
      'COPY worker/',
      'COPY code/',
    ].map(at);
    expect(order).not.toContain(-1);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // After the code, only steps whose layers are empty or hold what the code alone decides.
    expect(dockerfile.slice(at('COPY code/') + 1).map((line) => line.split(' ')[0])).toEqual(['RUN', 'ENV', 'WORKDIR', 'RUN', 'CMD']);
    expect(dockerfile.slice(at('COPY code/') + 1).join('\n')).not.toMatch(/apt-get|pip install|useradd/);
  });

  it('writes the same Dockerfile up to the code for two versions that differ only in their code, so a code-only redeploy reuses every layer before it', () => {
    const first = lines({ ...dependencies, VERSION_ID: 'v1', ENTRY_FILE: 'main.py', ENTRY_SYMBOL: 'run' });
    const second = lines({ ...dependencies, VERSION_ID: 'v2', ENTRY_FILE: 'models/predict.py', ENTRY_SYMBOL: 'Predictor' });
    const throughCode = (dockerfile: string[]) => dockerfile.slice(0, dockerfile.indexOf('COPY code/ /app/code/') + 1);
    expect(throughCode(first).length).toBeGreaterThan(5);
    expect(throughCode(second)).toEqual(throughCode(first));
    expect(second).toContain('ENV SLUICE_VERSION_ID=v2');
  });

  it('names the build cache by what comes before the code: one tag for versions that differ in their code only, another when a package changes', () => {
    lines({ ...dependencies, VERSION_ID: 'v1', ENTRY_FILE: 'main.py', ENTRY_SYMBOL: 'run' });
    const first = cacheTag('v1');
    lines({ ...dependencies, VERSION_ID: 'v2', ENTRY_FILE: 'other.py', ENTRY_SYMBOL: 'Other' });
    expect(cacheTag('v2')).toBe(first);
    lines({ ...dependencies, VERSION_ID: 'v3', PYTHON_PACKAGES: 'numpy==2.2' });
    expect(cacheTag('v3')).not.toBe(first);
    lines({ ...dependencies, VERSION_ID: 'v4', RUN_COMMANDS: encodeRunCommands(['echo other setup']) });
    expect(cacheTag('v4')).not.toBe(first);
    expect(first).toMatch(new RegExp(`^${IMAGE_URI.replace(/\./g, '\\.')}:deps-[0-9a-f]{16}$`));
  });

  it('builds with BuildKit from the cached image’s layers and, after a successful build only, tags the image as that cache', () => {
    const { phases } = imageBuildSpec() as { phases: Record<string, { commands: string[] }> };
    const build = phases.build?.commands.join('\n') ?? '';
    expect(build).toContain('CACHE_URI=');
    expect(build).toContain('DOCKER_BUILDKIT=1 docker build --tag "$IMAGE_URI" --build-arg BUILDKIT_INLINE_CACHE=1 --cache-from "$CACHE_URI" image');
    const push = phases.post_build?.commands.join('\n') ?? '';
    expect(push).toMatch(/^if \[ "\$CODEBUILD_BUILD_SUCCEEDING" = 1 \]; then docker push "\$IMAGE_URI" && /);
    expect(push).toContain('docker tag "$IMAGE_URI" "$CACHE_URI"');
    expect(push).toContain('docker push "$CACHE_URI"');
  });
});
