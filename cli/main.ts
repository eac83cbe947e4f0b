import { buildProgram } from './program.js';
import { terminalSafe } from './output/terminalText.js';

/** Errors a user fixes from their message alone: printed as one line, without a stack trace. */
const EXPECTED_ERRORS = new Set(['CliError', 'ApiError', 'ConfigError', 'ServiceError']);

try {
  await buildProgram().parseAsync();
} catch (error) {
  if (error instanceof Error && (EXPECTED_ERRORS.has(error.name) || error.constructor.name === 'ServiceError')) {
    // The message may carry the service's own words (its detail): at a terminal they cannot drive it.
    process.stderr.write(`error: ${process.stderr.isTTY ? terminalSafe(error.message) : error.message}\n`);
    process.exit(1);
  }
  throw error;
}
