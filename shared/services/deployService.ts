import { forbidden } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import type { FunctionMetadata } from '../domain/functionMetadata.js';
import { newId } from '../domain/ids.js';
import type { VersionRecord } from '../domain/version.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

export interface DeployResult {
  fn: FunctionRecord;
  version: VersionRecord;
}

/**
 * A deploy stores the code bundle, creates the function on its first deploy (owned by the
 * caller's organization) and a queued version on every deploy, then hands it to the builder.
 */
export class DeployService {
  constructor(
    private readonly store: Store,
    private readonly artifacts: Artifacts,
    private readonly builder: Builder,
    private readonly clock: Clock,
    private readonly defaultPythonVersion: string,
  ) {}

  async deploy(principal: Principal, ownerName: string, metadata: FunctionMetadata, bundle: Buffer): Promise<DeployResult> {
    if (ownerName !== principal.organizationName) {
      // Said the same whether or not the function exists, so a private name does not leak.
      throw forbidden(`You can deploy only to your own organization, "${principal.organizationName}".`);
    }
    const fn = await this.upsertFunction(principal, metadata);
    const now = this.clock.now();
    const version: VersionRecord = {
      id: newId(),
      functionId: fn.id,
      organizationId: principal.organizationId,
      createdAt: now,
      buildStatus: 'queued',
      queuedAt: now,
      builtAt: null,
      readyAt: null,
      buildError: null,
      computeType: metadata.gpu?.machine_type ?? 'cpu',
      split: metadata.gpu?.split ?? 1,
      pythonVersion: metadata.python_version ?? this.defaultPythonVersion,
      pythonPackages: metadata.python_packages,
      systemPackages: metadata.system_packages,
      cudaVersion: metadata.cuda_version,
      inputs: metadata.inputs,
      outputs: metadata.outputs,
      environmentVariables: metadata.environment_variables,
      functionDependencies: metadata.function_dependencies,
      minimumReplicas: metadata.minimum_replicas,
      maximumReplicas: metadata.maximum_replicas,
      streamOutput: metadata.entrypoint.generator,
      restartOnError: metadata.restart_on_error,
      entrypoint: metadata.entrypoint,
    };
    // The bundle first: a version never exists without its code.
    await this.artifacts.putBundle(version.id, bundle);
    await this.store.versions.create(version);
    // Awaited: on AWS the build's start is a call that must finish before the Lambda returns.
    await this.builder.enqueue(version.id);
    return { fn, version };
  }

  /**
   * Creates the function, or refreshes what the decorator declares about it. Listing fields
   * the decorator leaves unset keep what an edit gave them.
   */
  private async upsertFunction(principal: Principal, metadata: FunctionMetadata): Promise<FunctionRecord> {
    const now = this.clock.now();
    const existing = await this.store.functions.get(principal.organizationName, metadata.name);
    const declared = {
      functionType: metadata.function_dependencies.length > 0 ? ('workflow' as const) : ('function' as const),
      restartOnError: metadata.restart_on_error,
    };
    if (existing) {
      const updated: FunctionRecord = {
        ...existing,
        ...declared,
        title: metadata.title ?? existing.title,
        description: metadata.description ?? existing.description,
        tags: metadata.tags ?? existing.tags,
        readme: metadata.readme ?? existing.readme,
        codeUrl: metadata.code_url ?? existing.codeUrl,
        coverImageUrl: metadata.cover_image_url ?? existing.coverImageUrl,
        updatedAt: now,
      };
      await this.store.functions.put(updated);
      return updated;
    }
    const created: FunctionRecord = {
      id: newId(),
      organizationId: principal.organizationId,
      ownerName: principal.organizationName,
      name: metadata.name,
      visibility: 'private',
      ...declared,
      title: metadata.title,
      description: metadata.description,
      tags: metadata.tags,
      readme: metadata.readme,
      codeUrl: metadata.code_url,
      coverImageUrl: metadata.cover_image_url,
      examples: null,
      webhooks: [],
      createdAt: now,
      updatedAt: now,
    };
    if (await this.store.functions.create(created)) return created;
    // Another deploy created it first: refresh that one instead.
    return this.upsertFunction(principal, metadata);
  }
}
