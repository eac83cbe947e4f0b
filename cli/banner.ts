import type { BootstrapKey } from '../shared/app/bootstrapKey.js';

/** Where the service runs and its key: the first lines of `sluice start` and `npm run aws:local`. */
export function keyLines(url: string, dataDir: string, key: BootstrapKey): string[] {
  return [
    `Sluice is running at ${url} (data in ${dataDir})`,
    `API key for organization "${key.organization}"${key.created ? ' (new)' : ''}: ${key.key}`,
    `  (kept in ${key.path}; the sluice CLI reads it from there)`,
  ];
}

/** The lines a newcomer pastes: push to the example function, await it, deploy their own. */
export function tryItLines(url: string, key: BootstrapKey, awaitBase = `${url}/`): string[] {
  return [
    '',
    'Try it: push a job to the example function, then wait for its result',
    `  curl -s ${url}/v2/push -H "X-API-Key: ${key.key}" -H "Content-Type: application/json" -d '{"function": "${key.organization}/hello", "inputs": {"name": "Ada"}}'`,
    `  curl -s ${awaitBase}v2/jobs/JOB_ID/await -H "X-API-Key: ${key.key}"   # JOB_ID: the "id" the push answered`,
    'Deploy your own function: npx sluice deploy path/to/function',
    'Stop with Ctrl+C.',
  ];
}
