import { DEFAULT_PYTHON_PACKAGES } from '../shared/domain/defaultPackages.js';

/**
 * The image build of a version, as CodeBuild runs it. The service (the CodeBuild builder,
 * shared/adapters/aws/codeBuildBuilder.ts) starts one build per version and overrides the
 * per-build variables; the project holds the rest.
 */

/** Set per build by the service; the project's values are placeholders. */
export const PER_BUILD_VARIABLES = [
  'VERSION_ID',
  'BUNDLE_URI',
  'IMAGE_URI',
  'PYTHON_VERSION',
  'PYTHON_PACKAGES',
  'SYSTEM_PACKAGES',
  'RUN_COMMANDS',
  'CUDA_VERSION',
  'ENTRY_FILE',
  'ENTRY_SYMBOL',
] as const;

/**
 * Base images, from registries without Docker Hub's anonymous pull limits (CodeBuild hosts
 * share addresses): the Docker official images' mirror on ECR Public, and NVIDIA's NGC.
 * Project variables, so a deployment can point them at its own mirror.
 */
export const BASE_IMAGES = {
  /** `<this>:<python version>-slim` for versions without CUDA. */
  PYTHON_IMAGE: 'public.ecr.aws/docker/library/python',
  /** `<this>:<cuda version>-runtime-ubuntu22.04` for versions with a cuda_version. */
  CUDA_IMAGE: 'nvcr.io/nvidia/cuda',
  /** Where the worker's `node` binary is copied from. */
  NODE_IMAGE: 'public.ecr.aws/docker/library/node:22-bookworm-slim',
  /** uv installs the requested Python on CUDA images, which have none. */
  UV_IMAGE: 'ghcr.io/astral-sh/uv:0.8',
} as const;

export const DEFAULT_PYTHON_VERSION = '3.11';

/**
 * Writes `image/Dockerfile` and `image/requirements.txt` from the build's variables, refusing
 * values that would change the Dockerfile's meaning. PYTHON_PACKAGES and SYSTEM_PACKAGES are
 * space-separated lists (as the builder passes them); RUN_COMMANDS is the version's
 * run_commands as shared/domain/runCommands.ts encodes them (JSON strings, one a line, in
 * base64), each becoming a `RUN ["/bin/sh", "-c", ...]` line; CUDA_VERSION is empty for no CUDA,
 * and `12.1` means the `12.1.0` image. The image: the base (CUDA runtime or python slim), the
 * system packages, a virtual environment with the default packages (shared/domain/defaultPackages.ts:
 * those the version does not name itself; one that does not install for its Python only warns)
 * and then the Python packages, the run commands in order, the replicas' user, node, then the
 * worker (`/app/worker.mjs`, the Python SDK in `/app/sdk`) and the function's code (`/app/code`),
 * and last a step that imports the entry file (ENTRY_FILE, defining ENTRY_SYMBOL) as a replica
 * will, so code that does not import in its image fails the build, with the error in its log.
 * Nothing before the code depends on the version id or the entry file (see CACHE_TAG_SCRIPT).
 */
export const DOCKERFILE_SCRIPT = String.raw`set -euo pipefail
set -f # package specs such as numpy[extra] are not globs
fail() { echo "$1" >&2; exit 1; }
version_re='^[0-9]+\.[0-9]+(\.[0-9]+)?$'
packages_re='^[A-Za-z0-9.+:=_ -]*$'
json_string_re='^"([^"\\]|\\.)*"$'
[[ $VERSION_ID =~ ^[A-Za-z0-9_-]+$ ]] || fail "VERSION_ID \"$VERSION_ID\" is not a version id"
[[ $PYTHON_VERSION =~ $version_re ]] || fail "python_version \"$PYTHON_VERSION\" is not a version such as 3.11"
[[ -z $CUDA_VERSION || $CUDA_VERSION =~ $version_re ]] || fail "cuda_version \"$CUDA_VERSION\" is not a version such as 12.1"
[[ $SYSTEM_PACKAGES =~ $packages_re ]] || fail "system_packages may hold only package names (letters, digits, . + : = _ -)"
RUN_COMMANDS=$(printenv RUN_COMMANDS || true) # set per build; a project made before it existed has none
ENTRY_FILE=$(printenv ENTRY_FILE || true) # likewise: without it, no import step
ENTRY_SYMBOL=$(printenv ENTRY_SYMBOL || true)
# Written into a JSON RUN line: checked only when it holds nothing to escape (a name with a space is built unchecked).
check_import=0
if [[ $ENTRY_FILE =~ ^[A-Za-z0-9_][A-Za-z0-9._/-]*\.py$ && ! $ENTRY_FILE =~ (^|/)\.\./ && $ENTRY_SYMBOL =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
  check_import=1
elif [[ -n $ENTRY_FILE ]]; then
  echo "The import of $ENTRY_FILE is not checked at build: its name holds characters the Dockerfile step does not take." >&2
fi
[[ $RUN_COMMANDS =~ ^[A-Za-z0-9+/=]*$ ]] || fail "RUN_COMMANDS is not base64"
mkdir -p image
: > image/requirements.txt
for package in $PYTHON_PACKAGES; do printf '%s\n' "$package" >> image/requirements.txt; done
: > image/Dockerfile
line() { printf '%s\n' "$*" >> image/Dockerfile; }
line "FROM $NODE_IMAGE AS node"
if [[ -n $CUDA_VERSION ]]; then
  [[ $CUDA_VERSION =~ ^[0-9]+\.[0-9]+$ ]] && CUDA_VERSION="$CUDA_VERSION.0"
  line "FROM $UV_IMAGE AS uv"
  line "FROM $CUDA_IMAGE:$CUDA_VERSION-runtime-ubuntu22.04"
else
  line "FROM $PYTHON_IMAGE:$PYTHON_VERSION-slim"
fi
line "ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 AWS_REGION=$AWS_REGION"
line "RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates $SYSTEM_PACKAGES && rm -rf /var/lib/apt/lists/*"
if [[ -n $CUDA_VERSION ]]; then
  line 'COPY --from=uv /uv /usr/local/bin/uv'
  line "RUN UV_PYTHON_INSTALL_DIR=/opt/python uv venv --seed --python $PYTHON_VERSION /opt/venv"
else
  line 'RUN python -m venv /opt/venv'
fi
line 'ENV VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH'
# The defaults the version's packages do not name, by project name as defaultPackages.ts compares them (PEP 503).
project_name() { printf '%s' "$1" | sed -E 's/^[[:space:]]*([A-Za-z0-9._-]*).*/\1/; s/[-_.]+/-/g' | tr '[:upper:]' '[:lower:]'; }
defaults=''
for default in ${DEFAULT_PYTHON_PACKAGES.join(' ')}; do
  named=0
  for package in $PYTHON_PACKAGES; do [[ $(project_name "$package") = "$(project_name "$default")" ]] && named=1; done
  [[ $named = 1 ]] || defaults="$defaults $default"
done
# Before requirements.txt, so the version's own requirements win a conflict; one that cannot be installed warns and the build goes on.
if [[ -n $defaults ]]; then
  line "RUN pip install$defaults || for package in$defaults; do pip install \"\$package\" || echo \"Warning: default package \$package not installed for Python $PYTHON_VERSION; code that imports it fails its import check. Name a release that supports Python $PYTHON_VERSION in python_packages.\" >&2; done"
fi
line 'COPY requirements.txt /tmp/requirements.txt'
line 'RUN if [ -s /tmp/requirements.txt ]; then pip install -r /tmp/requirements.txt; fi'
while IFS= read -r command || [[ -n $command ]]; do
  [[ $command =~ $json_string_re ]] || fail "RUN_COMMANDS must hold one JSON string a line"
  line "RUN [\"/bin/sh\", \"-c\", $command]"
done < <(printf '%s' "$RUN_COMMANDS" | base64 -d)
# Replicas run as this user, not as the agent (root): they cannot read the agent's environment,
# where the task's AWS credentials are (handlers/worker/replicaProcess.ts).
line 'RUN groupadd --system --gid 10001 sluice-fn && useradd --system --uid 10001 --gid 10001 --create-home --home-dir /home/sluice-fn --shell /usr/sbin/nologin sluice-fn'
line 'ENV SLUICE_REPLICA_UID=10001 SLUICE_REPLICA_GID=10001 SLUICE_REPLICA_HOME=/home/sluice-fn'
# The code last (node changes with its image's tag, the worker with Sluice): a version that
# changes only its code reuses every layer above, and an instance holding the previous image
# pulls only what follows.
line 'COPY --from=node /usr/local/bin/node /usr/local/bin/node'
line 'COPY worker/ /app/'
line 'COPY code/ /app/code/'
# After run_commands, the packages and the code: no setuid or setgid file is left for a replica
# to gain root through (the container and the replicas also run with no-new-privileges).
line 'RUN find / -xdev -type f -perm /6000 -exec chmod ug-s {} +'
line "ENV SLUICE_VERSION_ID=$VERSION_ID"
line 'WORKDIR /app/code'
if [[ $check_import = 1 ]]; then
  line "RUN [\"env\", \"PYTHONPATH=/app/sdk:/app/code\", \"PYTHONDONTWRITEBYTECODE=1\", \"SLUICE_ENTRY_FILE=$ENTRY_FILE\", \"SLUICE_ENTRY_SYMBOL=$ENTRY_SYMBOL\", \"python\", \"-m\", \"sluice._check_import\"]"
fi
line 'CMD ["node", "/app/worker.mjs"]'
`;

/**
 * Prints the image the build takes its layer cache from: the repository's tag `deps-<hash>` of
 * the Dockerfile up to the code and the requirements, so every version with the same base,
 * packages and run_commands (a redeploy that changes only code) reuses the layers the last of
 * them built. The build pushes its image under that tag too, with BuildKit's inline cache
 * metadata; a tag not there yet only warns.
 */
export const CACHE_TAG_SCRIPT = [
  "key=$(sed '/^COPY code\\//,$d' image/Dockerfile | cat - image/requirements.txt | sha256sum | cut -c1-16)",
  'echo "${IMAGE_URI%:*}:deps-$key"',
].join('\n');

/** Downloads the version's bundle and the worker into the image's build context. */
const FETCH_SCRIPT = String.raw`set -euo pipefail
[[ -n $BUNDLE_URI && -n $IMAGE_URI ]] || { echo "BUNDLE_URI and IMAGE_URI are set per build by the service" >&2; exit 1; }
mkdir -p image/code image/worker
aws s3 cp "$BUNDLE_URI" bundle.tar.gz
tar -xzf bundle.tar.gz -C image/code
aws s3 cp "$WORKER_URI" worker.zip
unzip -q worker.zip -d image/worker
`;

const subshell = (script: string) => `(\n${script})`;

/** The buildspec: fetch (pre_build), write the Dockerfile and build (build), push to ECR (post_build). */
export function imageBuildSpec(): Record<string, unknown> {
  return {
    version: '0.2',
    env: { shell: 'bash' },
    phases: {
      pre_build: {
        commands: [
          subshell(FETCH_SCRIPT),
          'aws ecr get-login-password --region "$AWS_REGION" | docker login --username AWS --password-stdin "${IMAGE_URI%%/*}"',
        ],
      },
      build: {
        commands: [
          subshell(DOCKERFILE_SCRIPT),
          `CACHE_URI=$(${CACHE_TAG_SCRIPT})`,
          'DOCKER_BUILDKIT=1 docker build --tag "$IMAGE_URI" --build-arg BUILDKIT_INLINE_CACHE=1 --cache-from "$CACHE_URI" image',
        ],
      },
      post_build: {
        // post_build runs after a failed build too: push only a built image. The cache tag is a
        // second name of the same layers; failing to move it leaves the version's image good.
        commands: [
          'if [ "$CODEBUILD_BUILD_SUCCEEDING" = 1 ]; then docker push "$IMAGE_URI" && { docker tag "$IMAGE_URI" "$CACHE_URI" && docker push "$CACHE_URI" || echo "The build cache tag $CACHE_URI was not updated" >&2; }; fi',
        ],
      },
    },
  };
}
