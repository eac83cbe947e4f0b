import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export interface LineReader {
  /** Gives the line read so far without its line break, if any, as a line of its own: what follows starts a new one. */
  flush(): void;
  /**
   * Calls `then` once every byte the stream has read so far has been given as lines (the last,
   * unended, held back): at once, or when a paused stream has been resumed and has emptied its buffer.
   */
  whenCaughtUp(then: () => void): void;
}

/**
 * Calls `onLine` with each line of a stream's UTF-8 text as it arrives, and `onEnd` once the
 * stream has ended (after the last line, which needs no line break). A line ends at "\n",
 * "\r\n" or a lone "\r" (a progress bar redrawing itself), as node:readline splits with
 * `crlfDelay: Infinity`; unlike readline, a line not yet ended can be flushed (a job's last).
 */
export function readLines(stream: Readable, onLine: (line: string) => void, onEnd: () => void = () => undefined): LineReader {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  /** The last chunk ended in "\r": a "\n" that starts the next one ends no line of its own. */
  let afterReturn = false;
  const split = (text: string) => {
    let start = afterReturn && text.charCodeAt(0) === 10 ? 1 : 0;
    afterReturn = false;
    for (let end = start; end < text.length; end++) {
      const code = text.charCodeAt(end);
      if (code !== 10 && code !== 13) continue;
      onLine(partial + text.slice(start, end));
      partial = '';
      if (code === 13) {
        if (end + 1 === text.length) afterReturn = true;
        else if (text.charCodeAt(end + 1) === 10) end += 1;
      }
      start = end + 1;
    }
    partial += text.slice(start);
  };
  let waiting: (() => void) | undefined;
  const caughtUp = () => stream.readableLength === 0 && !stream.isPaused();
  const notify = () => {
    if (!waiting || !caughtUp()) return;
    const then = waiting;
    waiting = undefined;
    then();
  };
  stream.on('data', (chunk: Buffer | string) => {
    split(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    notify();
  });
  // A stream paused with nothing buffered gives no 'data' once resumed: look again after the
  // resume has given what was buffered, if anything.
  stream.on('resume', () => queueMicrotask(notify));
  const flush = () => {
    const line = partial + decoder.end();
    partial = '';
    // A "\r" that ended the last line ends it alone: a "\n" that comes next starts a line.
    afterReturn = false;
    if (line !== '') onLine(line);
  };
  stream.once('end', () => {
    flush();
    onEnd();
  });
  return {
    flush,
    whenCaughtUp(then) {
      if (caughtUp()) then();
      else waiting = then;
    },
  };
}
