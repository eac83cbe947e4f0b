import { useEffect, useState } from 'preact/hooks';
import { api, whenUnauthorized } from './api/client.js';
import { session } from './api/session.js';
import type { Organization } from './api/types.js';
import { href, useLocation } from './lib/router.js';
import { FunctionPage } from './pages/FunctionPage.js';
import { Functions } from './pages/Functions.js';
import { JobPage } from './pages/JobPage.js';
import { Jobs } from './pages/Jobs.js';
import { Settings } from './pages/Settings.js';
import { SignIn } from './pages/SignIn.js';
import { Usage } from './pages/Usage.js';

const SECTIONS = [
  ['functions', 'Functions'],
  ['jobs', 'Jobs'],
  ['usage', 'Usage'],
  ['settings', 'Keys & webhooks'],
] as const;

export function App() {
  const [organization, setOrganization] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(session.key() !== null);
  const location = useLocation();

  useEffect(() => {
    whenUnauthorized(() => (session.signOut(), setSignedIn(false)));
    if (signedIn && organization === null)
      api<Organization>('/v2/organization').then(
        (org) => setOrganization(org.name),
        () => undefined,
      );
  }, [signedIn, organization]);

  if (!signedIn) return <SignIn signedIn={(name) => (setOrganization(name), setSignedIn(true))} />;
  const [section = 'functions', ...rest] = location.path;
  const signOut = () => (session.signOut(), setOrganization(null), setSignedIn(false));
  return (
    <>
      <header class="top">
        <a class="brand" href={href(['functions'])}>
          Sluice
        </a>
        <nav>
          {SECTIONS.map(([path, label]) => (
            <a key={path} href={href([path])} class={section === path ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <span class="org" data-testid="organization">
          {organization ?? ''}
        </span>
        <button class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main class="page">
        <Page section={section} rest={rest} query={location.query} />
      </main>
    </>
  );
}

function Page({ section, rest, query }: { section: string; rest: string[]; query: URLSearchParams }) {
  if (section === 'functions' && rest.length >= 2) return <FunctionPage owner={rest[0] as string} name={rest[1] as string} tab={rest[2]} />;
  if (section === 'functions') return <Functions />;
  if (section === 'jobs' && rest[0]) return <JobPage id={rest[0]} />;
  if (section === 'jobs') return <Jobs query={query} />;
  if (section === 'usage') return <Usage query={query} />;
  if (section === 'settings') return <Settings />;
  return <p>No such page.</p>;
}
