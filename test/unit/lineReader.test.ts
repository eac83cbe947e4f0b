import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../shared/system/lineReader.js';

/** Lets the stream's events of this turn run. */
const aTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A stream, the lines read from it so far, and their reader. */
function aReader() {
  const stream = new PassThrough();
  const seen: string[] = [];
  return { stream, seen, reader: readLines(stream, (line) => seen.push(line)) };
}

/** The lines (and the end, as 'END') read from these chunks written one by one. */
async function linesOf(chunks: (string | Buffer)[]): Promise<string[]> {
  const stream = new PassThrough();
  const seen: string[] = [];
  const ended = new Promise<void>((resolve) => readLines(stream, (line) => seen.push(line), resolve));
  for (const chunk of chunks) {
    stream.write(chunk);
    await aTurn();
  }
  stream.end();
  await ended;
  return [...seen, 'END'];
}

describe('readLines: the lines of a process pipe, as node:readline splits them', () => {
  it('ends a line at \\n, \\r\\n or a lone \\r, and keeps empty lines', async () => {
    expect(await linesOf(['a\nb\r\nc\rd\n\n'])).toEqual(['a', 'b', 'c', 'd', '', 'END']);
  });

  it('joins a line written in several chunks, and a \\r\\n split between two ends one line', async () => {
    expect(await linesOf(['hel', 'lo\r', '\nwor', 'ld\n'])).toEqual(['hello', 'world', 'END']);
  });

  it('gives a character whose UTF-8 bytes are split between chunks whole', async () => {
    const bytes = Buffer.from('héllo ✓\n');
    expect(await linesOf([bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)])).toEqual(['héllo ✓', 'END']);
  });

  it('gives the last line without a line break when the stream ends, then the end', async () => {
    expect(await linesOf(['one\ntwo'])).toEqual(['one', 'two', 'END']);
    expect(await linesOf([])).toEqual(['END']);
  });

  it('flushes the line not yet ended as a line, and starts the next one afresh', async () => {
    const { stream, seen, reader } = aReader();
    stream.write('done\nhalf a li');
    await aTurn();
    reader.flush();
    reader.flush(); // nothing more to give
    stream.write('ne\n');
    await aTurn();
    expect(seen).toEqual(['done', 'half a li', 'ne']);
  });

  it('says when a paused stream has given every line it had read: once resumed and emptied', async () => {
    const { stream, seen, reader } = aReader();
    stream.pause();
    stream.write('one\ntwo\n');
    let caughtUp: string[] | undefined;
    reader.whenCaughtUp(() => (caughtUp = [...seen]));
    await aTurn();
    expect(caughtUp).toBeUndefined();
    stream.resume();
    await aTurn();
    expect(caughtUp).toEqual(['one', 'two']);
    let atOnce = false;
    reader.whenCaughtUp(() => (atOnce = true));
    expect(atOnce).toBe(true);
  });

  it('ends a line at a "\\r" for good once flushed: a "\\n" that comes next is an empty line of its own', async () => {
    const { stream, seen, reader } = aReader();
    stream.write('progress 50%\r');
    await aTurn();
    reader.flush();
    stream.write('\nnext\n');
    await aTurn();
    expect(seen).toEqual(['progress 50%', '', 'next']);
  });

  it('says a stream paused with nothing left to give has caught up once it is resumed', async () => {
    const { stream, seen, reader } = aReader();
    stream.write('all given\n');
    await aTurn();
    stream.pause();
    let caughtUp = false;
    reader.whenCaughtUp(() => (caughtUp = true));
    await aTurn();
    expect(caughtUp).toBe(false);
    stream.resume();
    await aTurn();
    expect(caughtUp).toBe(true);
    expect(seen).toEqual(['all given']);
  });
});
