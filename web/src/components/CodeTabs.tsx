import { useState } from 'preact/hooks';

/** Code in tabs (curl, Python, TypeScript), with a copy button. */
export function CodeTabs({ tabs }: { tabs: Record<string, string> }) {
  const names = Object.keys(tabs);
  const [chosen, setChosen] = useState(names[0] ?? '');
  const [copied, setCopied] = useState(false);
  const code = tabs[chosen] ?? '';
  const copy = () => void navigator.clipboard?.writeText(code).then(() => (setCopied(true), setTimeout(() => setCopied(false), 1500)));
  return (
    <div class="tabs">
      <div class="tab-bar" role="tablist">
        {names.map((name) => (
          <button key={name} role="tab" aria-selected={name === chosen} class={name === chosen ? 'tab active' : 'tab'} onClick={() => setChosen(name)}>
            {name}
          </button>
        ))}
        <button class="copy" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre class="code">
        <code>{code}</code>
      </pre>
    </div>
  );
}
