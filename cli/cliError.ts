/** An error to show the user as it is, without a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}
