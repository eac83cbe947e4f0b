import { randomUUID } from 'node:crypto';
import type { ApiKey } from '../../shared/domain/apiKey.js';
import type { FunctionRecord } from '../../shared/domain/function.js';
import type { JobOutput, JobRecord } from '../../shared/domain/job.js';
import type { LogEntry } from '../../shared/domain/log.js';
import type { Organization } from '../../shared/domain/organization.js';
import { hourOf, type UsageIncrement } from '../../shared/domain/usage.js';
import type { VersionRecord } from '../../shared/domain/version.js';
import type { WebhookDelivery } from '../../shared/domain/webhookDelivery.js';

/** Records for the contract suite: every field set, overridable one by one. */
const T0 = 1_732_000_000_000_000;

export function anOrganization(overrides: Partial<Organization> = {}): Organization {
  return { id: randomUUID(), name: `org-${randomUUID().slice(0, 8)}`, createdAt: T0, webhookSecret: null, ...overrides };
}

export function anApiKey(overrides: Partial<ApiKey> = {}): ApiKey {
  return {
    id: randomUUID(),
    organizationId: 'org-1',
    hash: randomUUID().replaceAll('-', ''),
    prefix: 'sk_abcdef',
    createdAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

/** A function with every optional field null: the shape of a first deploy. */
export function aBareFunction(overrides: Partial<FunctionRecord> = {}): FunctionRecord {
  return {
    id: randomUUID(),
    organizationId: 'org-1',
    ownerName: 'acme',
    name: 'resize',
    visibility: 'private',
    title: null,
    codeUrl: null,
    description: null,
    tags: null,
    coverImageUrl: null,
    examples: null,
    readme: null,
    functionType: 'function',
    webhooks: [],
    restartOnError: true,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** A function with every field filled in, arrays and webhooks included. */
export function aFullFunction(overrides: Partial<FunctionRecord> = {}): FunctionRecord {
  return aBareFunction({
    visibility: 'public',
    title: 'Resize',
    codeUrl: 'https://example.com/code',
    description: 'Resizes images — fast ✓',
    tags: ['image', 'resize'],
    coverImageUrl: 'https://example.com/cover.png',
    examples: ['example one', ''],
    readme: '# Resize\n\nLine two.',
    functionType: 'workflow',
    webhooks: [
      { type: 'job.start', url: 'https://hooks.example.com/start' },
      { type: 'job.complete', url: 'http://hooks.example.com/done?x=1' },
    ],
    restartOnError: false,
    createdAt: T0 + 1,
    updatedAt: T0 + 2,
    ...overrides,
  });
}

export function aVersion(overrides: Partial<VersionRecord> = {}): VersionRecord {
  return {
    id: randomUUID(),
    functionId: 'function-1',
    organizationId: 'org-1',
    createdAt: T0,
    buildStatus: 'queued',
    queuedAt: T0,
    builtAt: null,
    readyAt: null,
    buildError: null,
    computeType: 'a100-20gb',
    split: 2,
    pythonVersion: '3.11',
    pythonPackages: ['numpy==2.1.0', 'torch'],
    systemPackages: ['ffmpeg'],
    cudaVersion: null,
    inputs: [
      { name: 'image', type: 'sieve.File', description: 'the image', is_optional: false },
      { name: 'scale', type: 'float', description: '', is_optional: true, default: 0.5 },
      { name: 'options', type: 'dict', description: '', is_optional: true, default: { nested: [1, 'two', null], big: 1e300 } },
    ],
    outputs: [{ name: '', type: 'sieve.File', description: 'the resized image' }],
    environmentVariables: [{ name: 'TOKEN', description: 'an API token', default: '' }],
    functionDependencies: ['acme/other'],
    minimumReplicas: 0,
    maximumReplicas: null,
    streamOutput: true,
    restartOnError: true,
    entrypoint: { file: 'main.py', symbol: 'Resize', kind: 'class', generator: true },
    taskFailures: 0,
    ...overrides,
  };
}

export function aLogEntry(overrides: Partial<LogEntry> = {}): LogEntry {
  return {
    stream: 'job:job-1',
    organizationId: 'org-1',
    functionId: 'function-1',
    jobId: 'job-1',
    runId: 'run-1',
    stage: 'run',
    timeNs: 1_732_000_000_000_000_000n,
    message: 'hello',
    ...overrides,
  };
}

/** A queued job pushed through the API, with nested inputs, env and webhooks. */
export function aJob(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomUUID(),
    functionId: 'function-1',
    versionId: 'version-1',
    organizationId: 'org-1',
    ownerName: 'acme',
    functionName: 'resize',
    status: 'queued',
    createdAt: T0,
    startedAt: null,
    completedAt: null,
    error: '',
    visibility: 'private',
    runId: null,
    inputs: {
      image: { type: 'sieve.File', url: 'https://example.com/cat.png' },
      scale: 0.5,
      options: { nested: [1, 'two', null, { deep: true }], big: 1e300, text: 'héllo\n"quoted" ✓' },
    },
    env: { TOKEN: 'secret', EMPTY: '' },
    webhooks: [{ type: 'job.complete', url: 'https://hooks.example.com/done?x=1' }],
    source: 'api',
    parentJobId: null,
    restarts: [],
    attempts: 0,
    ...overrides,
  };
}

export function anOutput(overrides: Partial<JobOutput> = {}): JobOutput {
  return { jobId: 'job-1', index: 0, runId: 'run-1', type: 'str', name: '', data: 'hello', ...overrides };
}

/** A pending job.complete delivery, never attempted, its payload JSON with escapes and unicode. */
export function aDelivery(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: randomUUID(),
    jobId: 'job-1',
    organizationId: 'org-1',
    url: 'https://hooks.example.com/done?x=1',
    eventType: 'job.complete',
    payload: '{"type":"job.complete","body":{"job_id":"job-1","text":"héllo\\n\\"quoted\\" ✓"}}',
    sequence: T0,
    state: 'pending',
    attempts: [],
    nextAttemptAt: T0,
    createdAt: T0,
    ...overrides,
  };
}

/** One minute of a100 time for org-1's version-1, in the hour starting at 2024-11-19 07:00 UTC. */
export function anIncrement(overrides: Partial<UsageIncrement> = {}): UsageIncrement {
  return {
    organizationId: 'org-1',
    functionId: 'function-1',
    versionId: 'version-1',
    billingClass: 'a100',
    hour: hourOf(1_732_000_000),
    computeSeconds: 60,
    costDollars: 0.0625,
    ...overrides,
  };
}
