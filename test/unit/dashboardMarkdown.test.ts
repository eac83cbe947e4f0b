import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from '../../web/src/lib/markdown.js';

describe("the dashboard's README renderer", () => {
  it('reads headings, paragraphs, fenced code, lists, quotes and rules', () => {
    const blocks = parseMarkdown('# Title\n\nSome *words*\nwrapped.\n\n```sh\ncurl -X POST\n```\n\n- one\n- two\n\n1. first\n\n> quoted\n\n---\n');
    expect(blocks.map((block) => block.kind)).toEqual(['heading', 'paragraph', 'code', 'list', 'list', 'quote', 'rule']);
    expect(blocks[1]).toEqual({
      kind: 'paragraph',
      children: [
        { kind: 'text', text: 'Some ' },
        { kind: 'em', children: [{ kind: 'text', text: 'words' }] },
        { kind: 'text', text: ' wrapped.' },
      ],
    });
    expect(blocks[2]).toEqual({ kind: 'code', language: 'sh', text: 'curl -X POST' });
    expect(blocks[4]).toMatchObject({ kind: 'list', ordered: true });
  });

  it('keeps raw HTML as text: a README cannot add elements or scripts', () => {
    expect(parseInline('<img src=x onerror=alert(1)> **bold**')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> ' },
      { kind: 'strong', children: [{ kind: 'text', text: 'bold' }] },
    ]);
  });

  it('links only to http(s) and mailto targets; any other link keeps its text only', () => {
    expect(parseInline('[docs](https://example.com/a)')).toEqual([{ kind: 'link', href: 'https://example.com/a', children: [{ kind: 'text', text: 'docs' }] }]);
    expect(parseInline('[x](javascript:alert(1))').some((node) => node.kind === 'link')).toBe(false);
    expect(safeHref(' JavaScript:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,hi')).toBeNull();
    expect(safeHref('mailto:a@example.com')).toBe('mailto:a@example.com');
  });

  it('reads inline code literally, markers and all', () => {
    expect(parseInline('run `npm **start**` now')).toEqual([
      { kind: 'text', text: 'run ' },
      { kind: 'code', text: 'npm **start**' },
      { kind: 'text', text: ' now' },
    ]);
  });
});
