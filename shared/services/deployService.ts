import { forbidden, notFound, tooLarge } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import type { FunctionMetadata } from '../domain/functionMetadata.js';
import { newId } from '../domain/ids.js';
import type { Micros } from '../domain/time.js';
import { megabytes, UPLOAD_URL_EXPIRES_S } from '../domain/upload.js';
import type { VersionRecord } from '../domain/version.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { Builder } from '../ports/builder.js';
import type { BundleChecker } from '../ports/bundleChecker.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { Principal } from './principal.js';

/** A deploy's code: a bundle in the request itself, or an upload made before it. */
export type BundleSource = { bundle: Buffer } | { uploadId: string };

export interface Upload {
  uploadId: string;
  /** PUT exactly the announced size there, without an API key. */
  url: string;
  expiresAt: Micros;
}

export interface DeployResult {
  fn: FunctionRecord;
  version: VersionRecord;
}

/**
 * A deploy stores the code bundle, creates the function on its first deploy (owned by the
 * caller's organization) and a queued version on every deploy, then hands it to the builder.
 * The bundle comes inline or, whatever its size, through an upload the client makes first.
 */
export class DeployService {
  constructor(
    private readonly store: Store,
    private readonly artifacts: Artifacts,
    private readonly builder: Builder,
    private readonly clock: Clock,
    private readonly defaultPythonVersion: string,
    private readonly maxUploadBytes: number,
    private readonly checkBundle: BundleChecker,
  ) {}

  /** A URL the caller's organization PUTs a bundle of `size` bytes to, for a deploy to name by the upload's id. */
  async createUpload(principal: Principal, size: number): Promise<Upload> {
    this.checkUploadSize(size);
    const uploadId = newId();
    const url = await this.artifacts.uploadUrl({ organizationId: principal.organizationId, uploadId, size, expiresInS: UPLOAD_URL_EXPIRES_S });
    return { uploadId, url, expiresAt: this.clock.now() + UPLOAD_URL_EXPIRES_S * 1_000_000 };
  }

  async deploy(principal: Principal, ownerName: string, metadata: FunctionMetadata, source: BundleSource): Promise<DeployResult> {
    if (ownerName !== principal.organizationName) {
      // Said the same whether or not the function exists, so a private name does not leak.
      throw forbidden(`You can deploy only to your own organization, "${principal.organizationName}".`);
    }
    // Before anything is written: a deploy naming a bad upload creates nothing.
    if ('uploadId' in source) await this.checkUpload(principal, source.uploadId);
    // Read through before it is stored: a bomb, a link or a path out of the folder is refused here.
    await this.checkBundle(await this.bundleBytes(principal, source));
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
      runCommands: metadata.run_commands,
      cudaVersion: metadata.cuda_version,
      inputs: metadata.inputs,
      outputs: metadata.outputs,
      environmentVariables: metadata.environment_variables,
      functionDependencies: metadata.function_dependencies,
      minimumReplicas: metadata.minimum_replicas,
      maximumReplicas: metadata.maximum_replicas,
      streamOutput: metadata.entrypoint.generator,
      restartOnError: metadata.restart_on_error,
      timeoutSeconds: metadata.timeout,
      retries: metadata.retries,
      entrypoint: metadata.entrypoint,
      taskFailures: 0,
    };
    // The bundle first: a version never exists without its code.
    if ('uploadId' in source) await this.artifacts.putBundleFromUpload(version.id, principal.organizationId, source.uploadId);
    else await this.artifacts.putBundle(version.id, source.bundle);
    await this.store.versions.create(version);
    // Awaited: on AWS the build's start is a call that must finish before the Lambda returns.
    await this.builder.enqueue(version.id);
    return { fn, version };
  }

  private async checkUpload(principal: Principal, uploadId: string): Promise<void> {
    // Looked up under the caller's organization only: another organization's upload id is not found.
    const size = await this.artifacts.uploadSize(principal.organizationId, uploadId);
    if (size === null) {
      throw notFound(
        `Upload ${uploadId} not found: an upload can be deployed from for a day, by the organization that created it, once its PUT has succeeded.`,
      );
    }
    // Storage is told the size, but an emulator may not hold a client to it: checked again here.
    this.checkUploadSize(size);
  }

  private async bundleBytes(principal: Principal, source: BundleSource): Promise<AsyncIterable<Uint8Array>> {
    if ('bundle' in source) {
      const { bundle } = source;
      return (async function* () {
        yield bundle;
      })();
    }
    const stream = await this.artifacts.readUpload(principal.organizationId, source.uploadId);
    if (!stream) throw notFound(`Upload ${source.uploadId} not found.`);
    return stream;
  }

  private checkUploadSize(size: number): void {
    if (size > this.maxUploadBytes) throw tooLarge(`The bundle is ${megabytes(size)}; the limit is ${megabytes(this.maxUploadBytes)}.`);
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
