import type { ComponentChildren } from 'preact';
import type { BuildStatus, JobStatus } from '../api/types.js';

export function Status({ status }: { status: JobStatus | BuildStatus | string }) {
  return <span class={`status status-${status}`}>{status}</span>;
}

export function Failure({ message }: { message: string | undefined }) {
  return message ? (
    <p class="failure" role="alert">
      {message}
    </p>
  ) : null;
}

export function Loading() {
  return <p class="muted">Loading…</p>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header class="card-header">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** A value as pretty JSON, selectable. */
export function JsonBlock({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}
