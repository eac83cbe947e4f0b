import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Job, PushResult } from '../api/types.js';
import { href, navigate } from '../lib/router.js';
import { Failure, Section } from './common.js';

const jobLink = (id: string) => (
  <a href={href(['jobs', id])}>
    <code>{id}</code>
  </a>
);

/** How the job was scheduled (Sluice's priority, start deadline, retries), its restarts, and the replays it belongs with. */
export function JobScheduling({ job }: { job: Job }) {
  const replays = job.replays ?? [];
  return (
    <Section title="Scheduling">
      <dl class="facts" data-testid="job-scheduling">
        <dt>Priority</dt>
        <dd>{job.priority ?? 0}</dd>
        <dt>Start deadline</dt>
        <dd>{job.start_timeout === null || job.start_timeout === undefined ? 'none' : `${job.start_timeout} s after the push`}</dd>
        <dt>Retries</dt>
        <dd>{job.retries ?? 0}</dd>
        <dt>Restarts</dt>
        <dd>{(job.restarts ?? []).length}</dd>
        {job.replay_of && (
          <>
            <dt>Replay of</dt>
            <dd>{jobLink(job.replay_of)}</dd>
          </>
        )}
        {replays.length > 0 && (
          <>
            <dt>Replays</dt>
            <dd>
              <ul class="plain">
                {replays.map((id) => (
                  <li key={id}>{jobLink(id)}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </Section>
  );
}

/** Pushes the job again (same inputs, same version) and opens the new one. */
export function RunAgainButton({ id }: { id: string }) {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const runAgain = () => {
    setState({ busy: true });
    api<PushResult>(`/v2/jobs/${encodeURIComponent(id)}/replay?source=dashboard`, { method: 'POST' }).then(
      (pushed) => navigate(href(['jobs', pushed.id])),
      (error: Error) => setState({ busy: false, error: error.message }),
    );
  };
  return (
    <>
      <button disabled={state.busy} onClick={runAgain}>
        Run again
      </button>
      <Failure message={state.error} />
    </>
  );
}
