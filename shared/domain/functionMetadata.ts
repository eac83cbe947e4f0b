import { z } from 'zod';
import { MACHINE_TYPES, MAX_SPLIT } from './machineTypes.js';
import { MAX_REPLICAS, maximumAllows } from './replicaBounds.js';
import { MAX_RETRIES } from './scheduling.js';

/**
 * What a deploy declares about a function: the decorator's fields as the Python
 * inspector reads them from the source, plus where the code's entry point is.
 * Parsed on the service side too, so a hand-made request is held to the same rules.
 */
export const FUNCTION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PYTHON_VERSION_PATTERN = /^3\.\d{1,2}$/;
/**
 * A requirement by name: `numpy`, `torch==2.3.0`, `uvicorn[standard]>=0.30,<1`. Nothing pip
 * would read as an option (`--index-url ...`), a URL (`git+https://...`, `name @ https://...`)
 * or a path (`./x`, `/etc/passwd`, or a name pip takes for a local archive, `x.whl`): those
 * would let a deploy choose where code is fetched from, or read the builder's files.
 */
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
const SPECIFIER = '(?:===|==|~=|!=|<=|>=|<|>)[A-Za-z0-9.*+!_-]+';
const PYTHON_REQUIREMENT_PATTERN = new RegExp(
  `^(?!.*\\.(?:whl|zip|tar|tgz|gz|bz2|tbz|xz|txz|tlz|lz|lzma)$)${NAME}(?:\\[${NAME}(?:,${NAME})*\\])?(?:${SPECIFIER}(?:,${SPECIFIER})*)?$`,
);
const SYSTEM_PACKAGE_PATTERN = /^[a-z0-9][a-z0-9+.-]*$/;

/** The longest time limit a function or a push may set, in seconds (a day). */
export const MAX_TIMEOUT_S = 86_400;
export const timeoutSchema = z.int().min(1).max(MAX_TIMEOUT_S);

/** A File's type name in versions and jobs: the one Sieve's clients read. */
export const FILE_TYPE = 'sieve.File';
export const IO_TYPES = ['str', 'int', 'float', 'bool', 'dict', 'list', FILE_TYPE, 'any'] as const;
export type IoType = (typeof IO_TYPES)[number];

/** Whether a declared type is a File: `sieve.File`, or `sluice.File` as versions deployed before it was renamed say. */
export function isFileType(type: string): boolean {
  return type === FILE_TYPE || type === 'sluice.File';
}

/** An older SDK's `sluice.File` is read as `sieve.File`. */
const ioTypeSchema = z.preprocess((value) => (value === 'sluice.File' ? FILE_TYPE : value), z.enum(IO_TYPES));

const nullableText = z.string().nullable().default(null);

export const inputSpecSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Python identifier'),
  type: ioTypeSchema,
  description: z.string().default(''),
  is_optional: z.boolean().default(false),
  default: z.unknown().optional(),
});
export type InputSpec = z.infer<typeof inputSpecSchema>;

export const outputSpecSchema = z.object({
  name: z.string().default(''),
  type: ioTypeSchema,
  description: z.string().default(''),
});
export type OutputSpec = z.infer<typeof outputSpecSchema>;

export const environmentVariableSchema = z.object({
  name: z.string().regex(ENV_NAME_PATTERN, 'must be a valid environment variable name'),
  description: z.string().default(''),
  /** Null: required, as Sieve's `sieve.Env` without a default (each push sets it in `env`). */
  default: z.string().nullable().default(''),
});
export type EnvironmentVariable = z.infer<typeof environmentVariableSchema>;

export const gpuSchema = z.object({
  machine_type: z.enum(MACHINE_TYPES).exclude(['cpu']),
  split: z.int().min(1).max(MAX_SPLIT).default(1),
});

export const entrypointSchema = z.object({
  file: z.string().regex(/^[^/].*\.py$/, 'must be a relative path to a .py file'),
  symbol: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  kind: z.enum(['function', 'class']),
  generator: z.boolean().default(false),
});

export const functionMetadataSchema = z
  .object({
    name: z.string().regex(FUNCTION_NAME_PATTERN, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit'),
    entrypoint: entrypointSchema,
    gpu: gpuSchema.nullable().default(null),
    python_version: z.string().regex(PYTHON_VERSION_PATTERN, 'must look like "3.11"').nullable().default(null),
    python_packages: z
      .array(
        z.string().regex(PYTHON_REQUIREMENT_PATTERN, {
          error: (issue) =>
            `${JSON.stringify(issue.input)} must be a package name with optional extras and version, such as "numpy" or "torch==2.3.0": no options, URLs or paths (where packages come from is the operator's index)`,
        }),
      )
      .default([]),
    system_packages: z
      .array(
        z
          .string()
          .regex(SYSTEM_PACKAGE_PATTERN, { error: (issue) => `${JSON.stringify(issue.input)} must be a Debian package name: no options, URLs or paths` }),
      )
      .default([]),
    cuda_version: nullableText,
    /** Shell commands run at build, in order, after the Python packages are installed. */
    run_commands: z
      .array(
        z
          .string()
          .trim()
          .min(1, 'must be a shell command')
          .refine((command) => !command.includes('\0'), 'must not hold a NUL character'),
      )
      .default([]),
    environment_variables: z.array(environmentVariableSchema).default([]),
    minimum_replicas: z.int().min(0).max(MAX_REPLICAS).default(0),
    maximum_replicas: z.int().min(0).max(MAX_REPLICAS).nullable().default(null),
    restart_on_error: z.boolean().default(true),
    timeout: timeoutSchema.nullable().default(null),
    /** Sluice's: times a job that raises runs again (a push's `retries` overrides it). */
    retries: z.int().min(0).max(MAX_RETRIES).default(0),
    title: nullableText,
    description: nullableText,
    tags: z.array(z.string()).nullable().default(null),
    readme: nullableText,
    code_url: nullableText,
    cover_image_url: nullableText,
    inputs: z.array(inputSpecSchema).default([]),
    outputs: z.array(outputSpecSchema).default([]),
    function_dependencies: z.array(z.string().regex(/^[^/]+\/[^/]+$/, 'must be "owner/name"')).default([]),
  })
  .refine((m) => maximumAllows({ minimumReplicas: m.minimum_replicas, maximumReplicas: m.maximum_replicas }), {
    path: ['maximum_replicas'],
    message: 'must be at least minimum_replicas',
  })
  .refine((m) => new Set(m.environment_variables.map((v) => v.name)).size === m.environment_variables.length, {
    path: ['environment_variables'],
    message: 'names must be unique',
  });
export type FunctionMetadata = z.infer<typeof functionMetadataSchema>;
