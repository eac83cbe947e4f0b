import { buildProgram } from './program.js';

/** Errors a user fixes from their message alone: printed as one line, without a stack trace. */
const EXPECTED_ERRORS = new Set(['CliError', 'ApiError', 'ConfigError', 'ServiceError']);

try {
  await buildProgram().parseAsync();
} catch (error) {
  if (error instanceof Error && (EXPECTED_ERRORS.has(error.name) || error.constructor.name === 'ServiceError')) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
