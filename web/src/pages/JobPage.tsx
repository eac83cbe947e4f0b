import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { followJob } from '../api/jobFollower.js';
import { wholeJob } from '../api/wholeJob.js';
import type { InputOutput, Job, LogLine, LogPage, WebhookDeliveries } from '../api/types.js';
import { Failure, Loading, Section, Status } from '../components/common.js';
import { JobScheduling, RunAgainButton } from '../components/JobScheduling.js';
import { LogView } from '../components/LogView.js';
import { OutputList, ValueView } from '../components/OutputView.js';
import { formatDuration, formatTime } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useApi } from '../lib/useApi.js';

const FINAL = ['finished', 'error', 'cancelled'];
const jobPath = (id: string) => `/v2/jobs/${encodeURIComponent(id)}`;

interface Live {
  job: Job;
  outputs: (InputOutput | InputOutput[])[];
  logs: LogLine[];
  mode: 'stream' | 'polling' | null;
}

/** One job: where it stands, what went in and came out (live while it runs), its logs, children, webhooks. */
export function JobPage({ id }: { id: string }) {
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    let stop = () => undefined as void;
    let cancelled = false;
    setLive(null);
    wholeJob(id).then(
      async (job) => {
        if (cancelled) return;
        if (FINAL.includes(job.status)) {
          const logs = await api<LogPage>(`/v2/logs?job_id=${encodeURIComponent(id)}`).catch(() => null);
          if (!cancelled) setLive({ job, outputs: job.outputs ?? [], logs: (logs?.data ?? []).flatMap((group) => group.logs), mode: null });
          return;
        }
        // The follower replays the job from its start: outputs and logs are rebuilt from it.
        setLive({ job, outputs: [], logs: [], mode: null });
        const update = (change: (live: Live) => Partial<Live>) => setLive((previous) => (previous ? { ...previous, ...change(previous) } : previous));
        stop = followJob(id, {
          mode: (mode) => update(() => ({ mode, outputs: [], logs: [] })),
          status: (status) => update((previous) => ({ job: { ...previous.job, status } })),
          output: (output) => update((previous) => ({ outputs: [...previous.outputs, output] })),
          log: (line) => update((previous) => ({ logs: [...previous.logs, line] })),
          // A job's answer stops at a byte budget: one with more outputs is read whole.
          done: (job) => {
            if (job.next_output_offset === undefined) return update(() => ({ job, outputs: job.outputs ?? [] }));
            void wholeJob(id).then(
              (whole) => update(() => ({ job: whole, outputs: whole.outputs ?? [] })),
              (failure: Error) => setError(failure.message),
            );
          },
        });
      },
      (failure: Error) => setError(failure.message),
    );
    return () => {
      cancelled = true;
      stop();
    };
  }, [id]);

  if (error) return <Failure message={error} />;
  if (!live) return <Loading />;
  const { job } = live;
  const running = !FINAL.includes(job.status);
  return (
    <>
      <div class="page-header">
        <h1>
          Job <code>{job.id}</code>
        </h1>
        <Status status={job.status} />
        {running && live.mode && <span class="muted small">live ({live.mode === 'stream' ? 'streaming' : 'polling'})</span>}
        {running && <CancelButton id={job.id} />}
        <RunAgainButton id={job.id} />
      </div>
      <p class="lead">
        <a href={href(['functions', job.function.owner_name, job.function.name])}>
          {job.function.owner_name}/{job.function.name}
        </a>
      </p>
      <div class="columns">
        <div>
          {job.error && (
            <Section title="Error">
              <pre class="failure traceback" data-testid="job-error">
                {job.error}
              </pre>
            </Section>
          )}
          <Section title="Outputs">
            <OutputList outputs={live.outputs} />
          </Section>
          <Section title="Logs">
            <LogView lines={live.logs} empty={running ? 'No logs yet.' : 'No logs.'} />
          </Section>
        </div>
        <div>
          <Section title="Timeline">
            <Timeline job={job} />
          </Section>
          <Section title="Inputs">
            <dl class="inputs">
              {Object.entries(job.inputs ?? {}).map(([name, value]) => (
                <Fragment key={name}>
                  <dt>{name}</dt>
                  <dd>
                    <ValueView value={value} />
                  </dd>
                </Fragment>
              ))}
            </dl>
          </Section>
          <JobScheduling job={job} />
          <Children job={job} />
          <Webhooks id={job.id} />
        </div>
      </div>
    </>
  );
}

function Timeline({ job }: { job: Job }) {
  const steps: [string, string | null, string?][] = [
    ['created', job.created_at],
    ...(job.restarts ?? []).map((restart): [string, string | null, string?] => [
      `restarted (${String(restart.type)})`,
      restart.timestamp as string,
      String(restart.reason ?? ''),
    ]),
    ['started', job.started_at, job.started_at ? `waited ${formatDuration(job.created_at, job.started_at)}` : undefined],
    [
      FINAL.includes(job.status) ? job.status : 'running',
      job.completed_at,
      job.started_at ? `ran ${formatDuration(job.started_at, job.completed_at)}` : undefined,
    ],
  ];
  return (
    <ol class="timeline" data-testid="timeline">
      {steps.map(([label, at, note], index) => (
        <li key={index} class={at ? 'done' : 'pending'}>
          <strong>{label}</strong> <span class="muted">{formatTime(at)}</span>
          {note && <div class="muted small">{note}</div>}
        </li>
      ))}
    </ol>
  );
}

function CancelButton({ id }: { id: string }) {
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const cancel = () => {
    setState({ busy: true });
    api(jobPath(id), { method: 'DELETE' }).then(
      () => setState({ busy: false }),
      (error: Error) => setState({ busy: false, error: error.message }),
    );
  };
  return (
    <>
      <button class="danger" disabled={state.busy} onClick={cancel}>
        Cancel job
      </button>
      <Failure message={state.error} />
    </>
  );
}

function Children({ job }: { job: Job }) {
  const groups = Object.entries(job.children ?? {});
  if (groups.length === 0) return null;
  return (
    <Section title="Children">
      {groups.map(([fn, children]) => (
        <div key={fn}>
          <h3>{fn}</h3>
          <ul class="plain">
            {children.map((child) => (
              <li key={child.id}>
                <a href={href(['jobs', child.id])}>
                  <code>{child.id}</code>
                </a>{' '}
                <Status status={child.status} />
              </li>
            ))}
          </ul>
        </div>
      ))}
    </Section>
  );
}

/** The job's webhook deliveries, each attempt, and a button to send them again. */
function Webhooks({ id }: { id: string }) {
  const deliveries = useApi<WebhookDeliveries>(`${jobPath(id)}/webhooks`);
  const [resend, setResend] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const resendAll = () => {
    setResend({ busy: true });
    api(`${jobPath(id)}/webhooks/resend`, { method: 'POST' }).then(
      () => (setResend({ busy: false }), deliveries.reload()),
      (error: Error) => setResend({ busy: false, error: error.message }),
    );
  };
  const list = deliveries.data?.data ?? [];
  return (
    <Section
      title="Webhooks"
      actions={
        list.length > 0 && (
          <button disabled={resend.busy} onClick={resendAll}>
            Resend
          </button>
        )
      }
    >
      <Failure message={deliveries.error ?? resend.error} />
      {list.length === 0 ? (
        <p class="muted">No webhooks for this job.</p>
      ) : (
        <ul class="plain">
          {list.map((delivery) => (
            <li key={delivery.id}>
              <code>{delivery.type}</code> → {delivery.url} <Status status={delivery.state} />
              <ul class="attempts">
                {delivery.attempts.map((attempt, index) => (
                  <li key={index} class="muted small">
                    {formatTime(attempt.at)}: {attempt.status ?? 'no answer'} {attempt.error ?? ''}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
