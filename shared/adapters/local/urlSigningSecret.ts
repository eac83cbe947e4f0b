import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const urlSigningSecretPath = (dataDir: string) => join(dataDir, 'url-signing-key');

const SECRET_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The secret the local mode's signed URLs (file downloads, bundle uploads) are signed with:
 * made once, 32 random bytes, in <data dir>/url-signing-key (mode 0600, created exclusively),
 * and read on every start, so a URL handed out before a restart still works after it. Deleting
 * the file (then restarting) revokes every URL handed out. Function code never sees the data
 * directory (docs/security.md).
 */
export async function loadUrlSigningSecret(dataDir: string): Promise<Buffer> {
  const path = urlSigningSecretPath(dataDir);
  const made = randomBytes(32).toString('hex');
  const created = await writeFile(path, `${made}\n`, { mode: 0o600, flag: 'wx' }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false;
      throw error;
    },
  );
  const saved = created ? made : (await readFile(path, 'utf8')).trim();
  if (!SECRET_PATTERN.test(saved)) {
    throw new Error(`${path} does not hold a URL signing key (64 hex digits). Delete it to make a new one; the signed URLs handed out so far stop working.`);
  }
  // A copy restored from a backup may have lost its mode: only the service's user may read it.
  await chmod(path, 0o600);
  return Buffer.from(saved, 'hex');
}
