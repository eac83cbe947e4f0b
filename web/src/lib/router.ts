import { useEffect, useState } from 'preact/hooks';

/**
 * Pages are addressed by the URL's fragment (`#/jobs/ID`): the service serves one page at `/`
 * and never has to know the dashboard's paths, so none of them can collide with the API's.
 */
export interface Location {
  path: string[];
  query: URLSearchParams;
}

export function currentLocation(): Location {
  const hash = window.location.hash.replace(/^#/, '');
  const [path = '', query = ''] = hash.split('?', 2);
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const changed = () => setLocation(currentLocation());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return location;
}

/** `#/a/b?x=1` from segments (each encoded) and a query (empty values left out). */
export function href(segments: string[], query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${text ? `?${text}` : ''}`;
}

export const navigate = (to: string) => {
  window.location.hash = to.replace(/^#/, '');
};
