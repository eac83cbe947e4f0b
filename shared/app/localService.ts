import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lockDataDirectory } from '../adapters/local/dataDirectoryLock.js';
import { ROUTES } from '../http/routeTable.js';
import { createNodeGateway } from '../http/nodeGateway.js';
import { corsPolicy } from '../http/cors.js';
import { dashboardAnswer } from '../http/dashboard/dashboardSite.js';
import { DASHBOARD_DIR } from './dashboardDirectory.js';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import type { BootstrapKey } from './bootstrapKey.js';
import { ensureBootstrapKey } from './bootstrapKey.js';
import type { LocalApp } from './compositionRoot.js';
import { composeLocalApp } from './compositionRoot.js';
import type { Logger } from './logger.js';

export interface RunningService {
  url: string;
  app: LocalApp;
  bootstrapKey: BootstrapKey;
  /**
   * Stops taking requests (those that come meanwhile, and open awaits, are answered 503 with
   * Retry-After), lets running jobs finish within the grace period (SLUICE_SHUTDOWN_GRACE_S),
   * preempts the rest back to the queue, and closes the store.
   */
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
  const server = createNodeGateway({
    routes: ROUTES,
    endpoints: [app.uploads, app.downloads, app.metrics],
    services: app.services,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    bodyTimeoutMs: config.bodyTimeoutMs,
    cors: corsPolicy(config.corsOrigins),
    site: (pathname) => dashboardAnswer(DASHBOARD_DIR, pathname),
  });
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  await app.recover();
  logger.info({ url, dataDir: config.dataDir }, 'listening');
  return {
    url,
    app,
    bootstrapKey,
    async close() {
      logger.info({ graceS: config.shutdownGraceMs / 1000, running: app.agent.runningJobIds().length }, 'stopping');
      server.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Running jobs finish (or go back to the queue, durably, for the next start) before the store closes.
      await app.close(config.shutdownGraceMs);
      // A request still open now (an upload, a download) is cut: nothing is left to answer it.
      server.closeAllConnections();
      await closed;
      releaseLock();
      logger.info('stopped');
    },
  };
}

/** Listens; the usual reasons it cannot (the port taken, a privileged one, an address not here) as one line. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(listenError(error, port, host));
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const where = `${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(`Port ${port} is in use on ${host} (another Sluice, or another program): choose another with --port or PORT.`);
    case 'EACCES':
      return new ConfigError(`Not allowed to listen on ${where} (ports below 1024 need privileges): choose another with --port or PORT.`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`${host} is not an address of this machine: choose another with --host or HOST.`);
    default:
      return error;
  }
}
