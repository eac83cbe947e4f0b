import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';

/**
 * Hand-made gzipped tars, for bundles no honest packer makes: entries whose headers say what
 * the test wants (a huge size, a link, a path out of the folder), bodies streamed as zeros,
 * so a bomb is made without ever holding its inflated bytes.
 */
export interface TarEntry {
  path: string;
  /** Bytes of zeros the entry holds (a file's content). */
  size?: number;
  /** '0' file, '2' symbolic link, '1' hard link, '5' folder. */
  type?: '0' | '1' | '2' | '5';
  linkpath?: string;
  /** Text content instead of zeros. */
  content?: string;
}

const BLOCK = 512;

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(entry.path, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(entry.type ?? '0', 156, 'ascii');
  if (entry.linkpath) block.write(entry.linkpath, 157, 100, 'utf8');
  block.write('ustar\0' + '00', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** The tar's bytes, chunk by chunk: zeros come in 1 MiB slices, never all at once. */
async function* tarChunks(entries: TarEntry[]): AsyncGenerator<Buffer> {
  const zeros = Buffer.alloc(1024 * 1024);
  for (const entry of entries) {
    const content = entry.content === undefined ? null : Buffer.from(entry.content);
    const size = content ? content.length : (entry.size ?? 0);
    yield header(entry, size);
    if (content) yield content;
    else for (let left = size; left > 0; left -= zeros.length) yield left >= zeros.length ? zeros : zeros.subarray(0, left);
    if (size % BLOCK !== 0) yield Buffer.alloc(BLOCK - (size % BLOCK));
  }
  yield Buffer.alloc(2 * BLOCK);
}

/** A gzipped tar of `entries` (zeros compress about a thousandfold: a bomb stays small). */
export function gzippedTar(entries: TarEntry[]): Promise<Buffer> {
  return buffer(Readable.from(tarChunks(entries)).pipe(createGzip({ level: 1 })));
}

export const MAIN_PY = `import sluice

@sluice.function(name="bomb")
def run() -> str:
    return "ran"
`;
