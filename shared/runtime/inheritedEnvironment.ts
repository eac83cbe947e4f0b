/**
 * The service's variables a function's process keeps: how this machine is set up (locale, time
 * zone, proxies, CA bundles, the GPU driver's settings and libraries), never what the service is
 * configured or entrusted with (SLUICE_*, AWS_*, keys, anything else). A function gets its own
 * variables with each job.
 */
const MACHINE_SETUP =
  /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|(HTTPS?|FTP|NO|ALL)_PROXY|(https?|ftp|no|all)_proxy|SSL_CERT_(FILE|DIR)|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|LD_LIBRARY_PATH|NVIDIA_[A-Z_]+|CUDA_[A-Z_]+)$/;

/** The variables of `env` that a replica or a build inherits; `also` admits more (pip's PIP_* for builds). */
export function inheritedEnvironment(env: NodeJS.ProcessEnv, also?: RegExp): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (MACHINE_SETUP.test(name) || also?.test(name))) kept[name] = value;
  }
  return kept;
}
