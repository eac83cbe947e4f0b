/** Python source written indented inside a test; the common indentation is removed. */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const lines = String.raw({ raw: strings }, ...values)
    .replace(/^\n/, '')
    .split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const indent = Math.min(...indents);
  return lines.map((l) => l.slice(indent)).join('\n');
}
