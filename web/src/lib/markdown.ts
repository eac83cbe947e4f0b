/**
 * A small Markdown reader for READMEs: headings, paragraphs, fenced and indented code, lists,
 * quotes, rules; inline code, bold, italics and links. It builds a tree that is rendered as
 * elements and text nodes (components/Markdown.tsx): raw HTML in the source stays text, and
 * a link keeps only an http(s) or mailto target, so a README cannot inject markup or script.
 */
export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: 'paragraph'; children: Inline[] }
  | { kind: 'code'; language: string; text: string }
  | { kind: 'list'; ordered: boolean; items: Inline[][] }
  | { kind: 'quote'; children: Block[] }
  | { kind: 'rule' };

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] as string).trimStart().startsWith(fence[1] as string)) body.push(lines[index++] as string);
      index++;
      blocks.push({ kind: 'code', language: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      index++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: (heading[1] as string).length as 1, children: parseInline(heading[2] ?? '') });
      index++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ kind: 'rule' });
      index++;
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (index < lines.length && (/^( {4}|\t)/.test(lines[index] as string) || (lines[index] as string).trim() === ''))
        body.push((lines[index++] as string).replace(/^( {4}|\t)/, ''));
      blocks.push({ kind: 'code', language: '', text: body.join('\n').replace(/\n+$/, '') });
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (index < lines.length && QUOTE.test(lines[index] as string)) body.push(QUOTE.exec(lines[index++] as string)?.[1] ?? '');
      blocks.push({ kind: 'quote', children: parseMarkdown(body.join('\n')) });
      continue;
    }
    const marker = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : null;
    if (marker) {
      const items: string[] = [];
      while (index < lines.length) {
        const current = lines[index] as string;
        const item = marker.exec(current);
        if (item) items.push(item[1] ?? '');
        else if (current.trim() !== '' && /^\s+/.test(current) && items.length > 0) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        index++;
      }
      blocks.push({ kind: 'list', ordered: marker === NUMBERED, items: items.map(parseInline) });
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && (lines[index] as string).trim() !== '' && !startsBlock(lines[index] as string))
      paragraph.push((lines[index++] as string).trim());
    blocks.push({ kind: 'paragraph', children: parseInline(paragraph.join(' ')) });
  }
  return blocks;
}

const startsBlock = (line: string) => FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || BULLET.test(line) || NUMBERED.test(line);

/** Only targets that open a page or a mail: no javascript:, data: or other schemes. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : null;
}

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
  };
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const code = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest);
    if (code) {
      flush();
      out.push({ kind: 'code', text: (code[2] as string).trim() });
      index += code[0].length;
      continue;
    }
    const link = /^\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/.exec(rest);
    if (link) {
      flush();
      const href = safeHref(link[2] as string);
      const children = parseInline(link[1] as string);
      if (href) out.push({ kind: 'link', href, children });
      else out.push(...children);
      index += link[0].length;
      continue;
    }
    const strong = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (strong) {
      flush();
      out.push({ kind: 'strong', children: parseInline(strong[2] as string) });
      index += strong[0].length;
      continue;
    }
    const em = /^(\*|_)(?=\S)([\s\S]*?\S)\1(?!\1)/.exec(rest);
    if (em && (em[1] === '*' || !/\w/.test(text[index - 1] ?? ''))) {
      flush();
      out.push({ kind: 'em', children: parseInline(em[2] as string) });
      index += em[0].length;
      continue;
    }
    const bare = /^https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"]/.exec(rest);
    if (bare && !/\w/.test(text[index - 1] ?? '')) {
      flush();
      out.push({ kind: 'link', href: bare[0], children: [{ kind: 'text', text: bare[0] }] });
      index += bare[0].length;
      continue;
    }
    plain += text[index];
    index++;
  }
  flush();
  return out;
}
