/** `*` or comma-separated origins; an origin is scheme://host[:port], as a browser sends it. */
export function parseCorsOrigins(text: string): string[] | string {
  const origins = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (origins.length === 0) return 'no origin given (use * for any)';
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return `"${origin}" is not an origin such as https://app.example.com`;
    }
    if (parsed.origin !== origin) return `"${origin}" is not an origin: write it as ${parsed.origin}`;
  }
  return origins;
}
