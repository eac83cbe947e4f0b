import { useEffect, useRef } from 'preact/hooks';
import type { LogLine } from '../api/types.js';
import { formatLogTime } from '../lib/format.js';

/** Log lines with their times, kept scrolled to the end while lines arrive. */
export function LogView({ lines, empty = 'No logs.' }: { lines: LogLine[]; empty?: string }) {
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const element = box.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [lines.length]);
  if (lines.length === 0) return <p class="muted">{empty}</p>;
  return (
    <pre class="logs" ref={box} data-testid="logs">
      {lines.map((line, index) => (
        <div key={index}>
          <span class="log-time">{formatLogTime(line.timestamp)}</span> {line.message}
        </div>
      ))}
    </pre>
  );
}
