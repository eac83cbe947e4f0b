import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { session } from '../api/session.js';
import type { ApiKey, ApiKeyList, CreatedApiKey } from '../api/types.js';
import { formatTime } from '../lib/format.js';
import { useApi } from '../lib/useApi.js';
import { CopyButton } from './CopyButton.js';
import { Failure, Section } from './common.js';

interface Action {
  busy: boolean;
  error?: string;
  /** A key just made: its secret is shown this once. */
  created?: CreatedApiKey;
  notice?: string;
}

/**
 * The organization's API keys (`/v2/keys`): create one, revoke one, or rotate the key this tab
 * uses: a new key, shown once, becomes the tab's key, then the old one is revoked.
 */
export function ApiKeys() {
  const keys = useApi<ApiKeyList>('/v2/keys');
  const [action, setAction] = useState<Action>({ busy: false });
  const run = (work: () => Promise<Omit<Action, 'busy'>>) => {
    setAction({ busy: true });
    work().then(
      (done) => (setAction({ busy: false, ...done }), keys.reload()),
      (error: Error) => (setAction({ busy: false, error: error.message }), keys.reload()),
    );
  };
  const create = () => run(async () => ({ created: await api<CreatedApiKey>('/v2/keys', { method: 'POST' }) }));
  const revoke = (key: ApiKey) => {
    if (!window.confirm(`Revoke the key ${key.prefix}…? Anything still using it is refused from now on.`)) return;
    run(async () => ({ notice: (await api<{ message: string }>(`/v2/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' })).message }));
  };
  const rotate = (current: ApiKey) => {
    if (
      !window.confirm(
        `Rotate the key this tab uses (${current.prefix}…)? A new key replaces it here, and the old one is revoked: anything else using it is refused.`,
      )
    )
      return;
    run(async () => {
      const created = await api<CreatedApiKey>('/v2/keys', { method: 'POST' });
      session.signIn(created.secret);
      try {
        await api(`/v2/keys/${encodeURIComponent(current.id)}`, { method: 'DELETE' });
      } catch (error) {
        return { created, error: `This tab now uses the new key, but the old key ${current.prefix}… is still active: ${(error as Error).message}` };
      }
      return { created, notice: `Rotated: this tab now uses the new key, and ${current.prefix}… is revoked.` };
    });
  };
  const current = keys.data?.data.find((key) => key.current && key.revoked_at === null);
  return (
    <Section
      title="API keys"
      actions={
        <span>
          <button disabled={action.busy} onClick={create}>
            Create key
          </button>{' '}
          {current && (
            <button disabled={action.busy} onClick={() => rotate(current)}>
              Rotate this key
            </button>
          )}
        </span>
      }
    >
      <Failure message={keys.error ?? action.error} />
      {action.notice && <p class="success">{action.notice}</p>}
      {action.created && <NewKey created={action.created} />}
      <table data-testid="api-keys">
        <thead>
          <tr>
            <th>Key</th>
            <th>Created</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data?.data ?? []).map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <td>
                <code>{key.prefix}…</code> {key.current && <span class="muted">(this tab)</span>}
              </td>
              <td>{formatTime(key.created_at)}</td>
              <td>{key.revoked_at ? `revoked ${formatTime(key.revoked_at)}` : 'active'}</td>
              <td>
                {key.revoked_at === null && !key.current && (
                  <button class="danger" disabled={action.busy} onClick={() => revoke(key)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        The last active key cannot be revoked, so the organization always keeps one. Whoever runs the service can also manage keys with{' '}
        <code>npx sluice keys</code>.
      </p>
    </Section>
  );
}

function NewKey({ created }: { created: CreatedApiKey }) {
  return (
    <div class="new-key" role="status">
      <p>
        New key <code>{created.prefix}…</code>: copy it now, it is shown only this once.
      </p>
      <p>
        <code data-testid="new-key">{created.secret}</code> <CopyButton text={created.secret} />
      </p>
    </div>
  );
}
