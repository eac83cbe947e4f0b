import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Organization, WebhookSecret } from '../api/types.js';
import { ApiKeys } from '../components/ApiKeys.js';
import { Failure, Section } from '../components/common.js';
import { useApi } from '../lib/useApi.js';

/** The organization, its API keys (create, rotate, revoke), and the webhook signing secret, with rotation. */
export function Settings() {
  const organization = useApi<Organization>('/v2/organization');
  return (
    <>
      <div class="page-header">
        <h1>Keys & webhooks</h1>
      </div>
      <Section title="Organization">
        <dl class="facts">
          <dt>Name</dt>
          <dd>
            {organization.data?.name ?? '…'} <code class="muted">{organization.data?.id}</code>
          </dd>
        </dl>
      </Section>
      <ApiKeys />
      <WebhookSecret />
    </>
  );
}

function WebhookSecret() {
  const secret = useApi<WebhookSecret>('/v2/webhooks/secret');
  const [shown, setShown] = useState(false);
  const [rotation, setRotation] = useState<{ busy: boolean; error?: string; rotated?: string }>({ busy: false });
  const rotate = () => {
    if (!window.confirm('Rotate the webhook secret? Deliveries from now on are signed with the new one; receivers must be given it.')) return;
    setRotation({ busy: true });
    api<WebhookSecret>('/v2/webhooks/secret/rotate', { method: 'POST' }).then(
      (answer) => (setRotation({ busy: false, rotated: answer.secret }), setShown(true)),
      (error: Error) => setRotation({ busy: false, error: error.message }),
    );
  };
  const value = rotation.rotated ?? secret.data?.secret;
  return (
    <Section title="Webhook signing secret">
      <p class="muted">Every webhook delivery is signed with it (Standard Webhooks): receivers check the signature with this secret.</p>
      <Failure message={secret.error ?? rotation.error} />
      <p>
        <code data-testid="webhook-secret">{value ? (shown ? value : `${value.slice(0, 6)}${'•'.repeat(20)}`) : '…'}</code>{' '}
        <button onClick={() => setShown(!shown)}>{shown ? 'Hide' : 'Show'}</button>{' '}
        <button class="danger" disabled={rotation.busy} onClick={rotate}>
          Rotate
        </button>
      </p>
      {rotation.rotated && <p class="success">Rotated: deliveries are now signed with the new secret.</p>}
    </Section>
  );
}
