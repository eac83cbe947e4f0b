import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/** GETs a path with the session's key; again when the path changes, or on reload(). Null loads nothing. */
export function useApi<T>(path: string | null): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: path !== null });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    api<T>(path, { signal: controller.signal }).then(
      (data) => setState({ data, loading: false }),
      (error: Error) => !controller.signal.aborted && setState({ error: error.message, loading: false }),
    );
    return () => controller.abort();
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
