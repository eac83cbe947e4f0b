import { composeAwsApp } from '../shared/app/awsCompositionRoot.js';
import type { AwsApp } from '../shared/app/awsCompositionRoot.js';
import { loadAwsConfig } from '../shared/app/awsConfig.js';
import { createLogger } from '../shared/app/logger.js';
import { loadConfig } from '../shared/config.js';

export const logger = createLogger(loadConfig());

let app: AwsApp | undefined;

/** The services, built once per Lambda container on first use (not at import, so a bad setting is a logged error, not a crash loop). */
export function awsApp(): AwsApp {
  app ??= composeAwsApp(loadConfig(), loadAwsConfig(), logger);
  return app;
}
