import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { functionPath } from '../api/client.js';
import type { ConcurrencyInfo, FunctionInfo, InputOutput, LogPage, Version } from '../api/types.js';
import { CodeTabs } from '../components/CodeTabs.js';
import { Failure, Loading, Section, Status } from '../components/common.js';
import { LogView } from '../components/LogView.js';
import { Markdown } from '../components/Markdown.js';
import { PushForm } from '../components/PushForm.js';
import { callSnippets } from '../lib/callSnippets.js';
import { formatDuration, formatTime } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useApi } from '../lib/useApi.js';

const BUILDING = ['queued', 'building', 'pushing', 'deploying'];

/** One function: its README, how to call it, a form to push a job, its versions and their builds, its workers. */
export function FunctionPage({ owner, name, tab = 'overview' }: { owner: string; name: string; tab?: string }) {
  const fn = useApi<FunctionInfo>(functionPath(owner, name));
  const building = fn.data !== undefined && BUILDING.includes(fn.data.latest_version.build_status);
  useEffect(() => {
    if (!building) return;
    const timer = setInterval(fn.reload, 2000);
    return () => clearInterval(timer);
  }, [building, fn.reload]);
  if (fn.error) return <Failure message={fn.error} />;
  if (!fn.data) return <Loading />;
  const version = fn.data.latest_version;
  const tabs = [
    ['overview', 'Overview'],
    ['versions', 'Versions & builds'],
  ];
  return (
    <>
      <div class="page-header">
        <h1>
          {owner}/{name}
        </h1>
        <Status status={version.build_status} />
        <span class={`visibility ${fn.data.visibility ?? 'private'}`}>{fn.data.visibility ?? 'private'}</span>
        <a class="button" href={href(['jobs'], { function: `${owner}/${name}` })}>
          Jobs
        </a>
      </div>
      {fn.data.description && <p class="lead">{fn.data.description}</p>}
      <nav class="tab-bar">
        {tabs.map(([path, label]) => (
          <a key={path} class={tab === path ? 'tab active' : 'tab'} href={href(['functions', owner, name, path as string])}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'versions' ? <Versions owner={owner} name={name} /> : <Overview fn={fn.data} version={version} />}
    </>
  );
}

function Overview({ fn, version }: { fn: FunctionInfo; version: Version }) {
  const qualified = `${fn.owner_name}/${fn.name}`;
  const snippets = callSnippets(window.location.origin, qualified, version.inputs);
  return (
    <div class="columns">
      <div>
        <Section title="Run">
          {version.build_status === 'error' ? (
            <p class="failure">The latest version failed to build: see Versions & builds.</p>
          ) : (
            <PushForm fn={qualified} inputs={version.inputs} />
          )}
        </Section>
        <Section title="Call it from code">
          <CodeTabs tabs={{ curl: snippets.curl, Python: snippets.python, TypeScript: snippets.typescript }} />
        </Section>
        <Section title="README">{fn.readme ? <Markdown source={fn.readme} /> : <p class="muted">No README.</p>}</Section>
      </div>
      <div>
        <Section title="Inputs">
          <IoTable items={version.inputs} />
        </Section>
        <Section title="Outputs">
          <IoTable items={version.outputs} />
        </Section>
        <Workers version={version} />
        <Section title="Latest version">
          <dl class="facts">
            <dt>Version</dt>
            <dd>
              <code>{version.id}</code>
            </dd>
            <dt>Machine</dt>
            <dd>
              {version.compute_type}
              {version.split > 1 ? ` (split ${version.split})` : ''}
            </dd>
            <dt>Python</dt>
            <dd>{version.python_version ?? '—'}</dd>
            <dt>Packages</dt>
            <dd>{[...version.python_packages, ...version.system_packages].join(', ') || '—'}</dd>
            <dt>Replicas</dt>
            <dd>
              {version.minimum_replicas} to {version.maximum_replicas ?? 'any'}
            </dd>
          </dl>
        </Section>
      </div>
    </div>
  );
}

function IoTable({ items }: { items: InputOutput[] }) {
  if (items.length === 0) return <p class="muted">None.</p>;
  return (
    <table class="io">
      <tbody>
        {items.map((item, index) => (
          <tr key={index}>
            <td>
              <code>{item.name || '—'}</code>
            </td>
            <td class="type">{item.type}</td>
            <td class="muted">
              {item.description}
              {item.is_optional && ` (optional, default ${JSON.stringify(item.data)})`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The latest version's workers by state (its current_workers), and the organization's jobs in flight (GET /v2/user/concurrency). */
function Workers({ version }: { version: Version }) {
  const concurrency = useApi<ConcurrencyInfo>('/v2/user/concurrency');
  const workers = version.current_workers;
  return (
    <Section title="Workers">
      {workers ? (
        <ul class="counts" data-testid="workers">
          {Object.entries(workers).map(([state, count]) => (
            <li key={state}>
              <strong>{count}</strong> {state.replace('_', ' ')}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No workers.</p>
      )}
      {concurrency.data && (
        <p class="muted small">
          Organization: {concurrency.data.num_processing} job(s) running, {concurrency.data.num_queued} queued.
        </p>
      )}
    </Section>
  );
}

function Versions({ owner, name }: { owner: string; name: string }) {
  const versions = useApi<Version[]>(`${functionPath(owner, name)}/versions?limit=50`);
  const [open, setOpen] = useState<string | null>(null);
  if (versions.error) return <Failure message={versions.error} />;
  if (!versions.data) return <Loading />;
  return (
    <Section title="Versions">
      <table class="list" data-testid="versions">
        <thead>
          <tr>
            <th>Version</th>
            <th>Build</th>
            <th>Queued</th>
            <th>Build time</th>
            <th>Machine</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {versions.data.map((version) => (
            <Fragment key={version.id}>
              <tr>
                <td>
                  <code>{version.id}</code>
                </td>
                <td>
                  <Status status={version.build_status} />
                </td>
                <td>{formatTime(version.queued_at)}</td>
                <td>{formatDuration(version.queued_at, version.ready_at ?? version.built_at)}</td>
                <td>{version.compute_type}</td>
                <td>
                  <button class="link" onClick={() => setOpen(open === version.id ? null : version.id)}>
                    {open === version.id ? 'Hide build log' : 'Build log'}
                  </button>
                </td>
              </tr>
              {open === version.id && (
                <tr>
                  <td colSpan={6}>
                    <BuildLog version={version} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** A version's build output (GET /v2/logs?version_id=...), read again every 2 s while it builds. */
function BuildLog({ version }: { version: Version }) {
  const logs = useApi<LogPage>(`/v2/logs?version_id=${encodeURIComponent(version.id)}`);
  const building = BUILDING.includes(version.build_status);
  useEffect(() => {
    if (!building) return;
    const timer = setInterval(logs.reload, 2000);
    return () => clearInterval(timer);
  }, [building, logs.reload]);
  if (logs.error) return <Failure message={logs.error} />;
  return <LogView lines={(logs.data?.data ?? []).flatMap((group) => group.logs)} empty={logs.loading ? 'Loading…' : 'No build output.'} />;
}
