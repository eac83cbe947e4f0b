import { describe, expect, it } from 'vitest';
import { formatDollars, formatLogTime, formatSeconds } from '../../../cli/output/format.js';
import { createOutput } from '../../../cli/output/output.js';

describe('how the CLI prints values', () => {
  it('prints costs in dollars without binary float noise: cents at least, six decimals at most', () => {
    expect(formatDollars(0.1 + 0.2)).toBe('$0.30');
    expect(formatDollars(1.5)).toBe('$1.50');
    expect(formatDollars(0)).toBe('$0.00');
    expect(formatDollars(0.000123)).toBe('$0.000123');
    expect(formatDollars(0.0000004)).toBe('$0.00');
    expect(formatDollars(12.3456789)).toBe('$12.345679');
  });

  it('prints compute time in seconds, and in hours, minutes and seconds past a minute', () => {
    expect([formatSeconds(0.256), formatSeconds(12.5), formatSeconds(61), formatSeconds(3725)]).toEqual(['0.26s', '12.5s', '1m 1s', '1h 2m 5s']);
  });

  it("prints a log line's nanosecond time as local time, with the date only when it is not today", () => {
    const at = new Date(2025, 0, 31, 14, 5, 9, 123);
    const ns = `${BigInt(at.getTime()) * 1_000_000n + 456_789n}`;
    expect(formatLogTime(ns, at)).toBe('14:05:09.123');
    expect(formatLogTime(ns, new Date(2025, 1, 2))).toBe('2025-01-31 14:05:09.123');
  });
});

describe('CLI output', () => {
  function capture(isTTY: boolean, env: NodeJS.ProcessEnv = {}) {
    let text = '';
    const stdout = { isTTY, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    return { output: createOutput({ stdout, stderr: stdout, env }), text: () => text };
  }

  it('prints tab-separated lines, without colours, to a pipe', () => {
    const { output, text } = capture(false);
    output.table(['ID', 'STATUS'], [['a', output.style('green', 'finished')]]);
    expect(text()).toBe('ID\tSTATUS\na\tfinished\n');
  });

  it('aligns columns and colours them at a terminal', () => {
    const { output, text } = capture(true);
    output.table(['ID', 'STATUS'], [['abc', output.style('green', 'finished')]]);
    expect(text()).toContain('\u001b[32mfinished');
    expect(text().split('\n')[1]).toMatch(/^abc {2}/);
  });

  it('leaves colours out at a terminal when NO_COLOR is set', () => {
    const { output, text } = capture(true, { NO_COLOR: '1' });
    output.table(['ID'], [[output.style('red', 'x')]]);
    expect(text()).toBe('ID\nx\n');
  });

  it("shows a function's control sequences (clear screen, window title, links) as text at a terminal, keeping colours, tabs and newlines", () => {
    const hostile = '\u001b[2J\u001b]0;pwned\u0007\u001b]8;;http://evil\u0007click\u001b]8;;\u0007\r\u009b31m\u001b[31mred\u001b[0m\tend';
    const { output, text } = capture(true);
    output.line(hostile);
    output.note(`2\n${hostile}`);
    const shown = '^[[2J^[]0;pwned^G^[]8;;http://evil^Gclick^[]8;;^G^M\\u009b31m\u001b[31mred\u001b[0m\tend';
    expect(text()).toBe(`${shown}\n2\n${shown}\n`);
  });

  it('passes text through untouched to a pipe, where it is data', () => {
    const { output, text } = capture(false);
    output.line('\u001b]0;title\u0007\r');
    expect(text()).toBe('\u001b]0;title\u0007\r\n');
  });
});
