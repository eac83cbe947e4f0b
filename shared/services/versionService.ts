import { badRequest, notFound } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import type { VersionRecord } from '../domain/version.js';
import type { Page, Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { Principal } from './principal.js';

export class VersionService {
  constructor(
    private readonly store: Store,
    private readonly access: FunctionAccess,
  ) {}

  async list(principal: Principal, ownerName: string, name: string, page: Page): Promise<VersionRecord[]> {
    const fn = await this.access.readable(principal, ownerName, name);
    return this.store.versions.listByFunction(fn.id, page);
  }

  async get(principal: Principal, ownerName: string, name: string, slug: string): Promise<{ fn: FunctionRecord; version: VersionRecord }> {
    const fn = await this.access.readable(principal, ownerName, name);
    return { fn, version: await this.resolveSlug(fn, slug) };
  }

  /** `latest` is the newest ready version, else the newest one (so a first build in progress shows). */
  async latest(fn: FunctionRecord): Promise<VersionRecord | null> {
    return (await this.store.versions.latestReady(fn.id)) ?? (await this.store.versions.listByFunction(fn.id, { limit: 1, offset: 0 }))[0] ?? null;
  }

  /** A version slug: `latest`, a full version id, or a unique prefix of one. */
  async resolveSlug(fn: FunctionRecord, slug: string): Promise<VersionRecord> {
    if (slug === 'latest') {
      const latest = await this.latest(fn);
      if (!latest) throw notFound('Function version not found.');
      return latest;
    }
    const exact = await this.store.versions.get(slug);
    if (exact && exact.functionId === fn.id) return exact;
    const matches = await this.store.versions.findByPrefix(fn.id, slug, 2);
    if (matches.length === 0) throw notFound('Function version not found.');
    if (matches.length > 1) {
      throw badRequest(`Version prefix "${slug}" is ambiguous: it matches more than one version of ${fn.ownerName}/${fn.name}. Give more characters.`);
    }
    return matches[0] as VersionRecord;
  }
}
