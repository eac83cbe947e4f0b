import { functionPath, withQuery } from '../api/client.js';
import type { JobPage, JobStatus, TruncatedFunction, Version } from '../api/types.js';
import { Failure, Loading, Status } from '../components/common.js';
import { formatAgo, formatDuration } from '../lib/format.js';
import { href, navigate } from '../lib/router.js';
import { useApi } from '../lib/useApi.js';

const PAGE_SIZE = 20;
const STATUSES: JobStatus[] = ['queued', 'processing', 'finished', 'error', 'cancelled'];

/** Where the filters point: every job, a function's, or a version's (which the API does not filter by status). */
function jobsPath(fn: string, version: string, status: string, offset: number): string {
  const [owner, name] = fn.split('/');
  const page = { limit: PAGE_SIZE, offset };
  if (owner && name && version) return withQuery(`${functionPath(owner, name)}/versions/${encodeURIComponent(version)}/jobs`, page);
  if (owner && name) return withQuery(`${functionPath(owner, name)}/jobs`, { ...page, status });
  return withQuery('/v2/jobs', { ...page, status });
}

/** The organization's jobs, newest first, filtered by function, version and status, a page at a time. */
export function Jobs({ query }: { query: URLSearchParams }) {
  const fn = query.get('function') ?? '';
  const version = query.get('version') ?? '';
  const status = query.get('status') ?? '';
  const offset = Number(query.get('offset') ?? 0) || 0;
  const functions = useApi<TruncatedFunction[]>('/v2/functions?truncate=true');
  const [owner, name] = fn.split('/');
  const versions = useApi<Version[]>(owner && name ? `${functionPath(owner, name)}/versions?limit=100` : null);
  const jobs = useApi<JobPage>(jobsPath(fn, version, status, offset));
  const go = (changes: Record<string, string | number>) => navigate(href(['jobs'], { function: fn, version, status, offset: 0, ...changes }));
  // A version's route has no status filter: this page filters what it got.
  const rows = (jobs.data?.data ?? []).filter((job) => !version || !status || job.status === status);
  return (
    <>
      <div class="page-header">
        <h1>Jobs</h1>
        <button onClick={jobs.reload}>Refresh</button>
      </div>
      <div class="filters">
        <label>
          Function
          <select name="function" value={fn} onChange={(event) => go({ function: (event.currentTarget as HTMLSelectElement).value, version: '' })}>
            <option value="">All functions</option>
            {(functions.data ?? []).map((item) => (
              <option key={`${item.owner_name}/${item.name}`} value={`${item.owner_name}/${item.name}`}>
                {item.owner_name}/{item.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Version
          <select name="version" value={version} disabled={!fn} onChange={(event) => go({ version: (event.currentTarget as HTMLSelectElement).value })}>
            <option value="">All versions</option>
            {(versions.data ?? []).map((item) => (
              <option key={item.id} value={item.id}>
                {item.id} ({item.build_status})
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(event) => go({ status: (event.currentTarget as HTMLSelectElement).value })}>
            <option value="">Any status</option>
            {STATUSES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Failure message={jobs.error} />
      {jobs.loading && !jobs.data && <Loading />}
      {jobs.data && rows.length === 0 && <p class="muted">No jobs match.</p>}
      {rows.length > 0 && (
        <table class="list" data-testid="jobs">
          <thead>
            <tr>
              <th>Job</th>
              <th>Function</th>
              <th>Status</th>
              <th>Created</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((job) => (
              <tr key={job.id}>
                <td>
                  <a href={href(['jobs', job.id])}>
                    <code>{job.id}</code>
                  </a>
                </td>
                <td>
                  {job.function.owner_name}/{job.function.name}
                </td>
                <td>
                  <Status status={job.status} />
                </td>
                <td>{formatAgo(job.created_at)}</td>
                <td>{formatDuration(job.started_at, job.completed_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="pager">
        <button disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE_SIZE) })}>
          Newer
        </button>
        <span class="muted">{jobs.data && jobs.data.data.length > 0 ? `${offset + 1}–${offset + jobs.data.data.length}` : ''}</span>
        <button disabled={!jobs.data || jobs.data.next_offset <= 0} onClick={() => jobs.data && go({ offset: jobs.data.next_offset })}>
          Older
        </button>
      </div>
    </>
  );
}
