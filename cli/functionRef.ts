import type { ClientSettings } from './client.js';
import { callApi, CliError } from './client.js';

export interface FunctionRef {
  owner: string;
  name: string;
  /** `/v2/functions/{owner}/{name}` */
  path: string;
}

/** `owner/name`, or a bare `name` of the key's own organization. */
export async function resolveFunction(settings: ClientSettings, ref: string): Promise<FunctionRef> {
  const parts = ref.split('/');
  if (parts.length > 2 || parts.some((part) => part === ''))
    throw new CliError(`"${ref}" is not a function: name it owner/name, or name for one of your organization's.`);
  const name = parts.at(-1) as string;
  const owner = parts.length === 2 ? (parts[0] as string) : (await callApi<{ name: string }>(settings, 'GET', '/v2/organization')).name;
  return { owner, name, path: `/v2/functions/${encodeURIComponent(owner)}/${encodeURIComponent(name)}` };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Job and version ids are UUIDs; function names cannot be. */
export const looksLikeId = (text: string) => UUID.test(text);
