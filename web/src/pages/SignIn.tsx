import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { session } from '../api/session.js';
import type { Organization } from '../api/types.js';

/** The API key, checked against the API (GET /v2/organization) before it is kept for the session. */
export function SignIn({ signedIn }: { signedIn: (organization: string) => void }) {
  const [key, setKey] = useState('');
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const organization = await api<Organization>('/v2/organization', { key: key.trim() });
      session.signIn(key.trim());
      signedIn(organization.name);
    } catch (error) {
      setState({ busy: false, error: (error as { status?: number }).status === 401 ? 'That API key is not valid.' : (error as Error).message });
    }
  };
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit}>
        <h1>Sluice</h1>
        <p class="muted">Sign in with an API key. It is kept in this tab only, and forgotten when you close it.</p>
        <label class="field">
          <span class="field-name">API key</span>
          <input
            type="password"
            name="api-key"
            autocomplete="off"
            value={key}
            onInput={(event) => setKey((event.currentTarget as HTMLInputElement).value)}
            required
          />
        </label>
        {state.error && (
          <p class="failure" role="alert">
            {state.error}
          </p>
        )}
        <button type="submit" class="primary" disabled={state.busy || key.trim() === ''}>
          Sign in
        </button>
        <p class="muted small">
          <code>npm start</code> prints one, and keeps it in <code>.data/api-key</code>.
        </p>
      </form>
    </main>
  );
}
