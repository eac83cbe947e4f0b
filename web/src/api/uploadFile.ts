import { api } from './client.js';
import type { Upload } from './types.js';

/**
 * A local file as a File input: `POST /v2/uploads` with its size, a PUT of its bytes to the
 * upload URL (no key: the URL is signed), then the input `{upload_id, name}` (docs/api.md,
 * "File inputs").
 */
export async function uploadFile(file: File): Promise<{ upload_id: string; name: string }> {
  const upload = await api<Upload>('/v2/uploads', { method: 'POST', body: { size: file.size } });
  const response = await fetch(upload.upload_url, { method: 'PUT', body: file });
  if (!response.ok) throw new Error(`Uploading ${file.name} failed: HTTP ${response.status} ${await response.text()}`);
  return { upload_id: upload.upload_id, name: file.name };
}
