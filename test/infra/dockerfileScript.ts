import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_IMAGES, DOCKERFILE_SCRIPT } from '../../infra/buildspec.js';

export interface WrittenImage {
  status: number | null;
  stderr: string;
  /** image/Dockerfile, empty when the script failed. */
  dockerfile: string;
  /** image/requirements.txt, empty when the script failed. */
  requirements: string;
}

/** The build variables of a plain version (Python 3.11, no packages, no CUDA), which `variables` override. */
export const buildEnvironment = (variables: Record<string, string> = {}): Record<string, string | undefined> => ({
  PATH: process.env.PATH,
  ...BASE_IMAGES,
  AWS_REGION: 'eu-west-1',
  VERSION_ID: 'v1',
  PYTHON_VERSION: '3.11',
  PYTHON_PACKAGES: '',
  SYSTEM_PACKAGES: '',
  CUDA_VERSION: '',
  ...variables,
});

/** Runs the image build's DOCKERFILE_SCRIPT in `work` (replacing its image/ folder), as CodeBuild does for a version. */
export function writeImage(work: string, variables: Record<string, string> = {}): WrittenImage {
  rmSync(join(work, 'image'), { recursive: true, force: true });
  const result = spawnSync('bash', ['-c', DOCKERFILE_SCRIPT], { cwd: work, env: buildEnvironment(variables), encoding: 'utf8' });
  const read = (name: string) => (result.status === 0 ? readFileSync(join(work, 'image', name), 'utf8') : '');
  return { status: result.status, stderr: result.stderr, dockerfile: read('Dockerfile'), requirements: read('requirements.txt') };
}
