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
  // Anything else is a bug, or a service answering what it should not: one line, the stack on request.
  if (process.env.SLUICE_DEBUG) throw error;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: unexpected failure: ${process.stderr.isTTY ? terminalSafe(message) : message} (SLUICE_DEBUG=1 shows where)\n`);
  process.exit(1);
}
