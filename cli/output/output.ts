import { styleText } from 'node:util';
import { terminalSafe } from './terminalText.js';

type Style = Parameters<typeof styleText>[0];

/**
 * Where a command prints. A person at a terminal gets aligned tables and colours (unless
 * NO_COLOR is set); a pipe gets plain tab-separated lines; `--json` gets the service's JSON.
 */
export interface Output {
  readonly json: boolean;
  /** stdout is a terminal: tables are aligned. */
  readonly tty: boolean;
  line(text?: string): void;
  /** A line for the person watching (progress, hints): stderr, so stdout stays the result. */
  note(text: string): void;
  style(format: Style, text: string): string;
  table(headers: string[], rows: string[][]): void;
  /** The value as JSON, for scripts. */
  data(value: unknown): void;
}

export interface OutputOptions {
  json?: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

export function createOutput(options: OutputOptions = {}): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const env = options.env ?? process.env;
  const tty = stdout.isTTY === true;
  const colour = tty && !env.NO_COLOR && env.TERM !== 'dumb';
  // What reaches a terminal cannot drive it (terminalText.ts); a pipe gets the text as it is.
  const write = (stream: NodeJS.WriteStream, text: string) => stream.write(`${stream.isTTY === true ? terminalSafe(text) : text}\n`);
  const style = (format: Style, text: string) => (colour && text ? styleText(format, text, { validateStream: false }) : text);
  return {
    json: options.json === true,
    tty,
    line: (text = '') => write(stdout, text),
    note: (text) => write(stderr, text),
    style,
    table(headers, rows) {
      if (!tty) {
        for (const row of [headers, ...rows]) write(stdout, row.join('\t'));
        return;
      }
      const widths = headers.map((header, i) => Math.max(visibleLength(header), ...rows.map((row) => visibleLength(row[i] ?? ''))));
      const render = (row: string[]) =>
        row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell)))).join('  ');
      write(stdout, style('bold', render(headers)));
      for (const row of rows) write(stdout, render(row));
    },
    data: (value) => write(stdout, JSON.stringify(value, null, 2)),
  };
}

// eslint-disable-next-line no-control-regex
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;
