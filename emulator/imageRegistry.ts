import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** An image as the emulated ECS runs it: the worker (`app/`), the function's code and its Python environment. */
export interface LocalImage {
  /** worker.mjs and the Python SDK (`sdk/`), as the Dockerfile copies them to /app. */
  appDir: string;
  codeDir: string;
  /** The virtual environment the Dockerfile puts on PATH. */
  venv: string;
}

/**
 * ECR, emulated: images pushed by the emulated CodeBuild are folders, kept by image URI
 * (`<account>.dkr.ecr.<region>.amazonaws.com/<repository>:<tag>`).
 */
export class ImageRegistry {
  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
  }

  async push(uri: string, builtDir: string): Promise<void> {
    const target = this.pathOf(uri);
    rmSync(target, { recursive: true, force: true });
    renameSync(builtDir, target);
  }

  /** The image, or null when none was pushed under that URI (ECS: CannotPullContainerError). */
  pull(uri: string): LocalImage | null {
    const path = this.pathOf(uri);
    if (!existsSync(join(path, 'venv'))) return null;
    return { appDir: join(path, 'worker'), codeDir: join(path, 'code'), venv: readFileSync(join(path, 'venv'), 'utf8') };
  }

  private pathOf(uri: string): string {
    return join(this.folder, uri.replace(/[^A-Za-z0-9._-]/g, '_'));
  }
}
