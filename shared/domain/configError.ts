/** A setting's value is unusable; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
