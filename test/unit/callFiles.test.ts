/**
 * The agent's side of a File a function made and passes to another function
 * (shared/runtime/callFiles.ts): confined, bounded, all or nothing, replaced by an upload reference.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallFileError, MAX_CALL_FILES, openInside, passCallFiles, type CallFileOptions, type OpenedFile } from '../../shared/runtime/callFiles.js';
import type { CallMessage } from '../../shared/runtime/protocol.js';

let folder = '';
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'sluice-call-files-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const marker = (path: string, name = 'x') => ({ _type: 'sieve.File', path, name });
const call = (inputs: Record<string, unknown>, args?: unknown[]): CallMessage => ({
  type: 'call',
  call_id: 'c1',
  function: 'acme/child',
  inputs,
  ...(args ? { args } : {}),
  wait: true,
});

/** Options over real files under `folder` only (as a sandbox confines), recording what is opened, closed and stored. */
function recording(maxBytes = 1024 * 1024): CallFileOptions & { opened: string[]; closed: string[]; stored: [string, string, number][] } {
  const record = {
    opened: [] as string[],
    closed: [] as string[],
    stored: [] as [string, string, number][],
    maxBytes,
    async open(path: string): Promise<OpenedFile | null> {
      if (!path.startsWith(`${folder}/`)) return null;
      record.opened.push(path);
      return { path, close: async () => void record.closed.push(path) };
    },
    async store(path: string, name: string, size: number) {
      record.stored.push([path, name, size]);
      return { upload_id: `upload-${record.stored.length}`, name };
    },
  };
  return record;
}

describe('files a call passes', () => {
  it('leaves a call without local files as it is: values, URL-only Files', async () => {
    const options = recording();
    const given = call({ n: 1, doc: { _type: 'sieve.File', url: 'https://example.com/a.wav' } }, [2]);
    expect(await passCallFiles(given, options)).toBe(given);
    expect(options.opened).toEqual([]);
  });

  it('stores each local File, in inputs and positional arguments, nested in lists and dicts, and replaces it by its upload, keeping its name', async () => {
    const tone = join(folder, 'tone.wav');
    const notes = join(folder, 'notes.txt');
    await writeFile(tone, 'RIFF');
    await writeFile(notes, 'notes');
    const options = recording();
    const passed = await passCallFiles(
      call({ extra: { deep: [marker(notes, 'notes.txt')] }, url: { _type: 'sieve.File', url: 'https://example.com/u' } }, [marker(tone, 'tone.wav'), 3]),
      options,
    );
    expect(options.stored).toEqual([
      [notes, 'notes.txt', 5],
      [tone, 'tone.wav', 4],
    ]);
    expect(passed.inputs).toEqual({
      extra: { deep: [{ _type: 'sieve.File', upload_id: 'upload-1', name: 'notes.txt' }] },
      url: { _type: 'sieve.File', url: 'https://example.com/u' },
    });
    expect(passed.args).toEqual([{ _type: 'sieve.File', upload_id: 'upload-2', name: 'tone.wav' }, 3]);
    expect(JSON.stringify(passed)).not.toContain(folder);
    expect(options.closed.sort()).toEqual([notes, tone].sort());
  });

  it('takes only a name’s last part, and the path’s when the name is missing', async () => {
    const path = join(folder, 'clip.mp4');
    await writeFile(path, 'frames');
    const options = recording();
    await passCallFiles(call({ a: marker(path, '../../etc/passwd'), b: { _type: 'sieve.File', path } }), options);
    expect(options.stored.map(([, name]) => name)).toEqual(['passwd', 'clip.mp4']);
  });

  it('refuses a path it may not open, a relative one, a folder or a missing file, storing none of the call’s files', async () => {
    const fine = join(folder, 'fine.txt');
    await writeFile(fine, 'fine');
    for (const path of ['/etc/passwd', 'fine.txt', '/x/../etc/passwd', folder, join(folder, 'missing')]) {
      const options = recording();
      await expect(passCallFiles(call({ a: marker(fine) }, [[marker(path)]]), options)).rejects.toThrow(CallFileError);
      await expect(passCallFiles(call({ a: marker(fine) }, [[marker(path)]]), options)).rejects.toThrow(
        /is not a file the function may pass to another function/,
      );
      expect(options.stored).toEqual([]);
      expect(options.closed.sort()).toEqual(options.opened.sort());
    }
  });

  it('refuses more files than the limit, and files larger together than the limit, naming it, storing nothing', async () => {
    const small = join(folder, 'small.bin');
    await writeFile(small, Buffer.alloc(600));
    const options = recording(1000);
    const many = Array.from({ length: MAX_CALL_FILES + 1 }, () => marker(small));
    await expect(passCallFiles(call({ items: many }), options)).rejects.toThrow(
      `a call may pass at most ${MAX_CALL_FILES} files the function made (this one passes ${MAX_CALL_FILES + 1})`,
    );
    expect(options.opened).toEqual([]);
    await expect(passCallFiles(call({ a: marker(small), b: marker(small) }), options)).rejects.toThrow(/may hold 0 MB together \(SLUICE_MAX_UPLOAD_MB\)/);
    expect(options.stored).toEqual([]);
    expect(options.closed).toEqual(options.opened);
    expect((await passCallFiles(call({ a: marker(small) }), options)).inputs.a).toMatchObject({ upload_id: 'upload-1' });
  });

  it('refuses a malformed call: inputs that are not an object, args that are not a list', async () => {
    await expect(passCallFiles({ ...call({}), inputs: null as never }, recording())).rejects.toThrow(/a malformed call/);
    await expect(passCallFiles({ ...call({}), args: 'x' as never }, recording())).rejects.toThrow(/a malformed call/);
  });

  it('opens a job’s own input (openInside): a regular file inside its folder, never through a link out of it, a folder or a missing file', async () => {
    const inputs = join(folder, 'inputs', 'replica-1', 'job-1');
    await mkdir(join(inputs, 'doc'), { recursive: true });
    await writeFile(join(inputs, 'doc', 'speech.txt'), 'speech');
    await writeFile(join(folder, 'outside.txt'), 'not an input');
    await symlink(join(folder, 'outside.txt'), join(inputs, 'doc', 'link.txt'));
    const opened = await openInside(join(inputs, 'doc', 'speech.txt'), inputs);
    expect(opened?.path).toMatch(/^\/proc\/self\/fd\/\d+$/);
    await opened?.close();
    for (const path of [
      join(inputs, 'doc', 'link.txt'),
      join(inputs, 'doc'),
      join(inputs, 'missing'),
      join(folder, 'outside.txt'),
      `${inputs}/../../../outside.txt`,
    ]) {
      expect(await openInside(path, inputs), path).toBeNull();
    }
    expect(await openInside(join(inputs, 'doc', 'speech.txt'), join(folder, 'no-such-job'))).toBeNull();
  });
});
