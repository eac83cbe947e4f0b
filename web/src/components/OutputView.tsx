import type { InputOutput } from '../api/types.js';
import { JsonBlock } from './common.js';

interface FileData {
  url: string;
  name?: string;
}

const asFile = (data: unknown): FileData | null =>
  typeof data === 'object' && data !== null && typeof (data as FileData).url === 'string' && /^(https?:|\/|data:)/.test((data as FileData).url)
    ? (data as FileData)
    : null;

const KINDS: [RegExp, 'image' | 'audio' | 'video'][] = [
  [/\.(png|jpe?g|gif|webp|bmp|svg)$/i, 'image'],
  [/\.(mp3|wav|flac|ogg|m4a|aac|opus)$/i, 'audio'],
  [/\.(mp4|m4v|webm|mov)$/i, 'video'],
];

/** A file output as what it is: an image, a player, or a link to download it. */
function FilePreview({ file }: { file: FileData }) {
  const name = file.name ?? file.url.split('?')[0]?.split('/').pop() ?? 'file';
  const kind = KINDS.find(([pattern]) => pattern.test(name))?.[1];
  return (
    <figure class="file">
      {kind === 'image' && <img src={file.url} alt={name} loading="lazy" />}
      {kind === 'audio' && <audio src={file.url} controls preload="metadata" />}
      {kind === 'video' && <video src={file.url} controls preload="metadata" />}
      <figcaption>
        <a href={file.url} target="_blank" rel="noopener noreferrer">
          {name}
        </a>
      </figcaption>
    </figure>
  );
}

/** One value: a file, text, or JSON (dicts, lists, numbers). */
export function ValueView({ value }: { value: unknown }) {
  const file = asFile(value);
  if (file) return <FilePreview file={file} />;
  if (typeof value === 'string') return <pre class="text">{value}</pre>;
  return <JsonBlock value={value} />;
}

/** A job's outputs in order; a list output (several values at once) shows each. */
export function OutputList({ outputs }: { outputs: (InputOutput | InputOutput[])[] }) {
  if (outputs.length === 0) return <p class="muted">No outputs yet.</p>;
  return (
    <ol class="outputs" data-testid="outputs">
      {outputs.flat().map((output, index) => (
        <li key={index}>
          <span class="type">{output.type}</span>
          <ValueView value={output.data} />
        </li>
      ))}
    </ol>
  );
}
