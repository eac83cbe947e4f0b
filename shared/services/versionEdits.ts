import { badRequest, notFound } from '../domain/errors.js';
import { replicaBoundsProblem } from '../domain/replicaBounds.js';
import type { VersionRecord } from '../domain/version.js';
import type { Compute } from '../ports/compute.js';
import type { Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { Principal } from './principal.js';
import type { VersionService } from './versionService.js';

/** The edit-version body: absent or null fields are left as they are. */
export interface VersionEdit {
  minimum_replicas?: number | null;
  maximum_replicas?: number | null;
  /** Sluice extensions: seconds an idle replica stays (null: the deployment's default), and idle replicas kept ready. */
  scaledown_window?: number | null;
  buffer_replicas?: number | null;
}

/** Edits of a version after its deploy: its replica bounds, applied to what runs at once. */
export class VersionEdits {
  constructor(private readonly deps: { store: Store; access: FunctionAccess; versions: VersionService; compute: Compute }) {}

  /**
   * Changes a version's replica bounds without a redeploy (owner only): stored, then applied
   * to its running replicas (the local pool, or the ECS service's scaling on AWS). An absent
   * field is left as it is; a null scaledown_window goes back to the deployment's default.
   */
  async edit(principal: Principal, ownerName: string, name: string, slug: string, edit: VersionEdit): Promise<VersionRecord> {
    const fn = await this.deps.access.editable(principal, ownerName, name);
    const version = await this.deps.versions.resolveSlug(fn, slug);
    const bounds = {
      minimumReplicas: edit.minimum_replicas ?? version.minimumReplicas,
      maximumReplicas: edit.maximum_replicas ?? version.maximumReplicas,
      scaledownWindowSeconds: edit.scaledown_window === undefined ? (version.scaledownWindowSeconds ?? null) : edit.scaledown_window,
      bufferReplicas: edit.buffer_replicas ?? version.bufferReplicas ?? 0,
    };
    const problem = replicaBoundsProblem(bounds);
    if (problem) throw badRequest(`Invalid values passed. ${problem}`);
    const edited = await this.deps.store.versions.setReplicaBounds(version.id, bounds);
    if (!edited) throw notFound('Function version not found.');
    await this.deps.compute.applyReplicaBounds(edited);
    return edited;
  }
}
