/**
 * Whether a request target's path or query holds a malformed percent-encoding (`%zz`, a cut
 * `%E2%82`): such a request is answered 400, never decoded leniently or left to fail later.
 */
export function hasMalformedPercentEncoding(url: URL): boolean {
  const parts = [
    url.pathname,
    ...url.search
      .slice(1)
      .split(/[&=]/)
      .map((part) => part.replace(/\+/g, ' ')),
  ];
  return parts.some((part) => {
    try {
      decodeURIComponent(part);
      return false;
    } catch {
      return true;
    }
  });
}
