import { useState } from 'preact/hooks';
import type { FunctionInfo } from '../api/types.js';
import { Failure, Loading, Status } from '../components/common.js';
import { formatAgo } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useApi } from '../lib/useApi.js';

const matches = (fn: FunctionInfo, words: string[]) => {
  const text = [fn.owner_name, fn.name, fn.title, fn.description, ...(fn.tags ?? [])].join(' ').toLowerCase();
  return words.every((word) => text.includes(word));
};

/** The organization's functions: search, visibility, and where each latest version's build stands. */
export function Functions() {
  const functions = useApi<FunctionInfo[]>('/v2/functions');
  const [search, setSearch] = useState('');
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (functions.data ?? []).filter((fn) => matches(fn, words));
  return (
    <>
      <div class="page-header">
        <h1>Functions</h1>
        <input
          type="search"
          placeholder="Search functions"
          aria-label="Search functions"
          value={search}
          onInput={(event) => setSearch((event.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <Failure message={functions.error} />
      {functions.loading && !functions.data && <Loading />}
      {functions.data?.length === 0 && (
        <p class="muted">
          No functions yet. Deploy one with <code>npx sluice deploy path/to/function</code>.
        </p>
      )}
      <div class="grid" data-testid="functions">
        {shown.map((fn) => (
          <a key={`${fn.owner_name}/${fn.name}`} class="card function-card" href={href(['functions', fn.owner_name, fn.name])}>
            <div class="card-header">
              <h2>
                {fn.owner_name}/<strong>{fn.name}</strong>
              </h2>
              <Status status={fn.latest_version.build_status} />
            </div>
            {fn.title && fn.title !== fn.name && <p class="title">{fn.title}</p>}
            <p class="muted">{fn.description || 'No description.'}</p>
            <p class="meta">
              <span class={`visibility ${fn.visibility ?? 'private'}`}>{fn.visibility ?? 'private'}</span>
              <span>{fn.latest_version.compute_type}</span>
              <span>updated {formatAgo(fn.latest_version.queued_at)}</span>
              {(fn.tags ?? []).map((tag) => (
                <span key={tag} class="tag">
                  {tag}
                </span>
              ))}
            </p>
          </a>
        ))}
      </div>
      {functions.data && functions.data.length > 0 && shown.length === 0 && <p class="muted">No function matches “{search}”.</p>}
    </>
  );
}
