import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard, saying so for a moment. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(text).then(() => (setCopied(true), setTimeout(() => setCopied(false), 1500)));
  return (
    <button class="copy" onClick={copy}>
      {copied ? 'Copied' : label}
    </button>
  );
}
