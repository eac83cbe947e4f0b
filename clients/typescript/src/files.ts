import type { InputOutput, Upload } from './apiTypes.js';
import type { Transport } from './transport.js';

/** A file input as a push takes it: an upload of this organization, saved under `name`, or a URL. */
export type FileInput = { upload_id: string; name: string } | { url: string };

/**
 * Sends a Blob (a browser's File, or Node's `openAsBlob`) to the service as a job input: an
 * upload URL, a PUT of the bytes (no key: the URL carries its own signature), and the input
 * naming it. An empty file travels as a `data:` URL, since an upload has at least one byte.
 */
export async function uploadFile(transport: Transport, file: Blob, name?: string): Promise<FileInput> {
  const fileName = name ?? (file as Partial<File>).name ?? 'file';
  if (file.size === 0) return { url: 'data:,' };
  const upload = await transport.json<Upload>('POST', '/v2/uploads', { body: { size: file.size } });
  await transport.unkeyed(upload.upload_url, { method: 'PUT', body: file });
  return { upload_id: upload.upload_id, name: fileName };
}

/**
 * A file output's bytes, as a Response to stream (`.body`) or read whole (`.blob()`). The
 * output's URL is signed and needs no key; the key goes only to the service's own routes.
 */
export async function downloadFile(transport: Transport, output: InputOutput | string): Promise<Response> {
  const url = typeof output === 'string' ? output : (output.data as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') throw new TypeError('Not a file output: its data has no url.');
  if (url.startsWith(`${transport.base}/v2/`)) return transport.send('GET', url.slice(transport.base.length));
  return transport.unkeyed(url, { method: 'GET' });
}
