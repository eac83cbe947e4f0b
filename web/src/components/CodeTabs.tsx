import { useState } from 'preact/hooks';
import { CopyButton } from './CopyButton.js';

/** Code in tabs (curl, Python, TypeScript), with a copy button. */
export function CodeTabs({ tabs }: { tabs: Record<string, string> }) {
  const names = Object.keys(tabs);
  const [chosen, setChosen] = useState(names[0] ?? '');
  const code = tabs[chosen] ?? '';
  return (
    <div class="tabs">
      <div class="tab-bar" role="tablist">
        {names.map((name) => (
          <button key={name} role="tab" aria-selected={name === chosen} class={name === chosen ? 'tab active' : 'tab'} onClick={() => setChosen(name)}>
            {name}
          </button>
        ))}
        <CopyButton text={code} />
      </div>
      <pre class="code">
        <code>{code}</code>
      </pre>
    </div>
  );
}
