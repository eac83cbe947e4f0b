import type { ClientSettings } from './client.js';
import { callApi, CliError } from './client.js';

interface UploadOutput {
  upload_id: string;
  upload_url: string;
}

/**
 * Sends a code bundle as every deploy does, whatever its size: POST /v2/uploads for a URL,
 * then PUT the bytes there (straight to S3 on AWS, so no request limit applies). Returns the
 * upload id a deploy names; one upload serves every function of a directory. A File input
 * from a local path travels the same way (`what` names it in errors).
 */
export async function uploadBundle(settings: ClientSettings, bundle: Buffer, what = 'the bundle'): Promise<string> {
  const upload = await callApi<UploadOutput>(settings, 'POST', '/v2/uploads', { size: bundle.length });
  let response: Response;
  try {
    // No API key: the URL carries its own authorization.
    response = await fetch(upload.upload_url, { method: 'PUT', body: bundle });
  } catch (error) {
    throw new CliError(`Cannot upload ${what} to ${new URL(upload.upload_url).origin} (${(error as Error).cause ?? (error as Error).message}).`);
  }
  if (!response.ok) throw new CliError(`Uploading ${what} failed (${response.status}): ${(await response.text()).slice(0, 500)}`);
  return upload.upload_id;
}
