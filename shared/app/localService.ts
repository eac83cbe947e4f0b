import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lockDataDirectory } from '../adapters/local/dataDirectoryLock.js';
import { ROUTES } from '../http/routeTable.js';
import { createNodeGateway } from '../http/nodeGateway.js';
import { corsPolicy } from '../http/cors.js';
import { dashboardAnswer } from '../http/dashboard/dashboardSite.js';
import { DASHBOARD_DIR } from './dashboardDirectory.js';
import type { Config } from '../config.js';
import type { BootstrapKey } from './bootstrapKey.js';
import { ensureBootstrapKey } from './bootstrapKey.js';
import type { LocalApp } from './compositionRoot.js';
import { composeLocalApp } from './compositionRoot.js';
import type { Logger } from './logger.js';

const SHUTDOWN_GRACE_MS = 5_000;

export interface RunningService {
  url: string;
  app: LocalApp;
  bootstrapKey: BootstrapKey;
  /** Stops taking requests, lets running work finish, closes the store. */
  close(): Promise<void>;
}

/**
 * The embedded service: the HTTP API and the builder, over one SQLite data directory, which it
 * holds alone: a second service on the same directory refuses to start (it would take the first
 * one's running jobs for abandoned ones and run them again).
 */
export async function startLocalService(config: Config, logger: Logger): Promise<RunningService> {
  const lock = lockDataDirectory(config.dataDir);
  try {
    return await startHoldingLock(config, logger, lock.release);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function startHoldingLock(config: Config, logger: Logger, releaseLock: () => void): Promise<RunningService> {
  let url = '';
  const app = await composeLocalApp(config, logger, () => url);
  const bootstrapKey = await ensureBootstrapKey(app.services.keys, config.dataDir, config.bootstrapOrganization, config.bootstrapApiKey);
  const server = createNodeGateway({ routes: ROUTES, endpoints: [app.uploads, app.downloads], services: app.services, logger, maxBodyBytes: config.maxBodyBytes, bodyTimeoutMs: config.bodyTimeoutMs, cors: corsPolicy(config.corsOrigins), site: (pathname) => dashboardAnswer(DASHBOARD_DIR, pathname) });
  await listen(server, config.port, config.host);
  const { port } = server.address() as AddressInfo;
  url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  await app.recover();
  logger.info({ url, dataDir: config.dataDir }, 'listening');
  return {
    url,
    app,
    bootstrapKey,
    async close() {
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Requests still open after a grace period (a long await, say) are cut.
        setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      });
      // Replicas stop first: their running jobs go back to the queue, durably, for the next start.
      await app.close();
      await closed;
      releaseLock();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
