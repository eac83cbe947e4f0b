import type { BootstrapKey } from '../shared/app/bootstrapKey.js';

/** Where the service runs and its key: the first lines of `sluice start` and `npm run aws:local`. */
export function keyLines(url: string, dataDir: string, key: BootstrapKey): string[] {
  const running = `Sluice is running at ${url} (data in ${dataDir})`;
  if (key.revoked) return [running, ...revokedKeyLines(key)];
  return [running, `API key for organization "${key.organization}"${key.created ? ' (new)' : ''}: ${key.key}`, `  (kept in ${key.path})`];
}

/** Where the dashboard is, or how to build it when `npm run build` has not run. */
export function dashboardLine(url: string, built: boolean): string {
  return built ? `Dashboard: ${url}/ (sign in with the API key)` : `Dashboard: not built, so ${url}/ says so; build it with: npm run build`;
}

/** A revoked bootstrap key stays revoked: the service runs without it, and says how to get another. */
function revokedKeyLines(key: BootstrapKey): string[] {
  const where = key.preset ? 'SLUICE_API_KEY' : key.path;
  return [
    `The API key in ${where} has been revoked: it no longer works, and no new one was made for you.`,
    `  Make a new key: npx sluice keys create --org ${key.organization}${key.preset ? ', and set SLUICE_API_KEY to it' : ''}`,
    ...(key.preset ? [] : [`  or remove ${key.path} and start again: a new key is made and kept there.`]),
  ];
}

/** The lines a newcomer pastes: push to the example function, await it, deploy their own. */
/** Without the examples there is nothing to call yet: what to do first. */
export function firstStepLines(): string[] {
  return [
    '',
    'No functions are deployed by this start (npm start, or --examples, deploys the examples).',
    'Deploy one: npx sluice deploy path/to/function',
    'Stop with Ctrl+C.',
  ];
}

export function tryItLines(url: string, key: BootstrapKey, awaitBase = `${url}/`): string[] {
  const shown = key.revoked ? 'YOUR_KEY' : key.key;
  return [
    '',
    'Try it: push a job to the example function, then wait for its result',
    `  curl -s ${url}/v2/push -H "X-API-Key: ${shown}" -H "Content-Type: application/json" -d '{"function": "${key.organization}/hello", "inputs": {"name": "Ada"}}'`,
    `  curl -s ${awaitBase}v2/jobs/JOB_ID/await -H "X-API-Key: ${shown}"   # JOB_ID: the "id" the push answered`,
    `Or with the CLI: npx sluice run ${key.organization}/hello --input name=Ada`,
    'Deploy your own function: npx sluice deploy path/to/function',
    'Stop with Ctrl+C.',
  ];
}
