import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';

/** A local file as a File to upload (`client.upload(await fileFromPath('clip.mp4'))`), read as it is sent, never whole in memory. */
export async function fileFromPath(path: string, name = basename(path)): Promise<File> {
  return new File([await openAsBlob(path)], name);
}
