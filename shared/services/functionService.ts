import { notFound } from '../domain/errors.js';
import type { FunctionRecord } from '../domain/function.js';
import type { Webhook } from '../domain/webhook.js';
import type { VersionRecord } from '../domain/version.js';
import type { Clock } from '../ports/clock.js';
import type { Page, Store } from '../ports/store.js';
import type { FunctionAccess } from './functionAccess.js';
import type { Principal } from './principal.js';
import type { VersionService } from './versionService.js';
import type { WebhookUrlPolicy } from './webhookUrlPolicy.js';

/** The edit-function body; absent fields are left as they are. */
export interface FunctionEdit {
  /** null, as absent, leaves them. */
  webhooks?: { hooks: Webhook[] } | null;
  visibility?: 'public' | 'private' | null;
  title?: string | null;
  code_url?: string | null;
  description?: string | null;
  tags?: string[] | null;
  cover_image_url?: string | null;
  readme?: string | null;
  examples?: string[] | null;
}

export interface FunctionView {
  fn: FunctionRecord;
  latestVersion: VersionRecord;
}

export class FunctionService {
  constructor(
    private readonly store: Store,
    private readonly access: FunctionAccess,
    private readonly versions: VersionService,
    private readonly clock: Clock,
    private readonly webhookPolicy: WebhookUrlPolicy,
  ) {}

  /** A public function as another organization sees it: without its owner's webhooks. */
  async get(principal: Principal, ownerName: string, name: string): Promise<FunctionView> {
    const fn = await this.access.readable(principal, ownerName, name);
    return this.requireView(fn.organizationId === principal.organizationId ? fn : { ...fn, webhooks: [] });
  }

  /** Whether the caller can see a function of that name that has a version. */
  async exists(principal: Principal, ownerName: string, name: string): Promise<boolean> {
    const fn = await this.store.functions.get(ownerName, name);
    return fn !== null && this.access.canRead(principal, fn) && (await this.view(fn)) !== null;
  }

  /** The caller's own functions, by name. */
  async list(principal: Principal, page: Page): Promise<FunctionView[]> {
    const functions = await this.store.functions.listByOwner(principal.organizationName, page);
    const views = await Promise.all(functions.map((fn) => this.view(fn)));
    return views.filter((view) => view !== null);
  }

  async edit(principal: Principal, ownerName: string, name: string, edit: FunctionEdit): Promise<FunctionView> {
    const fn = await this.access.editable(principal, ownerName, name);
    if (edit.webhooks) await this.webhookPolicy.assertAllowed(edit.webhooks.hooks, ['body', 'webhooks', 'hooks']);
    const updated: FunctionRecord = {
      ...fn,
      // A function always has a visibility: null leaves it unchanged.
      visibility: edit.visibility ?? fn.visibility,
      webhooks: edit.webhooks ? edit.webhooks.hooks : fn.webhooks,
      title: edit.title === undefined ? fn.title : edit.title,
      codeUrl: edit.code_url === undefined ? fn.codeUrl : edit.code_url,
      description: edit.description === undefined ? fn.description : edit.description,
      tags: edit.tags === undefined ? fn.tags : edit.tags,
      coverImageUrl: edit.cover_image_url === undefined ? fn.coverImageUrl : edit.cover_image_url,
      readme: edit.readme === undefined ? fn.readme : edit.readme,
      examples: edit.examples === undefined ? fn.examples : edit.examples,
      updatedAt: this.clock.now(),
    };
    await this.store.functions.put(updated);
    return this.requireView(updated);
  }

  /** A first deploy writes the function an instant before its version: until then it is not there. */
  private async view(fn: FunctionRecord): Promise<FunctionView | null> {
    const latestVersion = await this.versions.latest(fn);
    return latestVersion ? { fn, latestVersion } : null;
  }

  private async requireView(fn: FunctionRecord): Promise<FunctionView> {
    const view = await this.view(fn);
    if (!view) throw notFound('Function not found.');
    return view;
  }
}
