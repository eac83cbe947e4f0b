import { fileURLToPath } from 'node:url';
import { deployExamples, examplesLeftOutLine } from '../../shared/app/deployExamples.js';
import type { Logger } from '../../shared/app/logger.js';
import type { RunningService } from '../../shared/app/localService.js';
import { startLocalService } from '../../shared/app/localService.js';
import type { Config } from '../../shared/config.js';
import { dashboardBuilt } from '../../shared/http/dashboard/dashboardSite.js';
import { DASHBOARD_DIR } from '../../shared/app/dashboardDirectory.js';
import { dashboardLine, firstStepLines, keyLines, tryItLines } from '../banner.js';
import { rememberLocalService } from '../settings/rememberService.js';

const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

/**
 * `sluice start`: the embedded service in this process until SIGINT or SIGTERM, then a clean
 * shutdown (a second signal exits at once).
 */
export async function startCommand(config: Config, logger: Logger, withExamples: boolean, print: (line: string) => void): Promise<RunningService> {
  const service = await startLocalService(config, logger);
  const { key, revoked, organization } = service.bootstrapKey;
  keyLines(service.url, config.dataDir, service.bootstrapKey).forEach((line) => print(line));
  print(dashboardLine(service.url, dashboardBuilt(DASHBOARD_DIR)));
  if (!revoked) print(await rememberLocalService(service.url, key, config.dataDir));
  if (service.app.sandbox.warning) print(`WARNING: ${service.app.sandbox.warning}`);
  if (revoked) logger.warn({ organization }, 'the bootstrap API key is revoked');
  if (withExamples) {
    // The examples belong to the bootstrap organization, whether or not its key still works.
    const principal = revoked ? await organizationPrincipal(service, organization) : await service.app.services.auth.authenticate(key);
    const { deployed, installing } = await deployExamples(service.app.services, principal, EXAMPLES_DIR, config.python);
    if (deployed.length > 0) {
      print(`Building the example functions: ${deployed.join(', ')}`);
      await service.app.builder.idle();
    }
    if (installing.length > 0) print(examplesLeftOutLine(installing));
  }
  (withExamples ? tryItLines(service.url, service.bootstrapKey) : firstStepLines()).forEach((line) => print(line));
  stopOnSignals(service, logger, print);
  return service;
}

async function organizationPrincipal(service: RunningService, name: string) {
  const organization = await service.app.services.keys.ensureOrganization(name);
  return { organizationId: organization.id, organizationName: organization.name };
}

function stopOnSignals(service: RunningService, logger: Logger, print: (line: string) => void): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    print(`\n${signal}: shutting down…`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
