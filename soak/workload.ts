import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { followEvents, outputData } from './eventFollower.js';
import type { JobKind, PushRecord } from './history.js';
import { isTransient, request, sleep } from './http.js';
import type { Random } from './random.js';
import type { MoodyReceiver } from './receivers.js';
import { BUDGETED } from './soakSystem.js';

export interface SoakOrganization {
  name: string;
  key: string;
}

export interface WorkloadTarget {
  url: string;
  /** The base of the await route (the function URL on AWS), no trailing slash. */
  awaitBase: string;
}

/** How often each kind of job is pushed. */
const MIX: Record<JobKind, number> = { echo: 8, sleep: 2, stream: 3, workflow: 2, file: 2, cancel: 1, timeLimit: 1 };
/** How long a client keeps asking again for a push its answers keep failing (restarts, a full disk). */
const PUSH_PATIENCE_MS = 120_000;

/**
 * The soak's clients: each organization runs `loops` clients at once; each pushes a job of a
 * kind drawn from MIX (with an Idempotency-Key, retried with the same key until answered, and
 * sometimes repeated on purpose), cancels it if its kind says so, and follows it to its end by
 * await or by its event stream. Everything each was told goes into `records`.
 */
export class Workload {
  readonly records: PushRecord[] = [];
  private sequence = 0;
  private stopping = false;

  constructor(
    private readonly target: WorkloadTarget,
    private readonly organizations: SoakOrganization[],
    private readonly receivers: MoodyReceiver[],
    private readonly random: Random,
  ) {}

  /** Runs until `stop()`; then lets every client follow its last job to the end, until `drainDeadline()`. */
  async run(loops: number, drainDeadline: () => number): Promise<void> {
    const clients = this.organizations.flatMap((organization) => Array.from({ length: loops }, () => this.client(organization, drainDeadline)));
    await Promise.all(clients);
  }

  stop(): void {
    this.stopping = true;
  }

  private async client(organization: SoakOrganization, drainDeadline: () => number): Promise<void> {
    while (!this.stopping) {
      await this.one(organization, this.random.weighted(MIX), drainDeadline).catch((error: Error) => {
        process.stderr.write(`soak client: ${error.stack ?? error.message}\n`);
      });
    }
  }

  private async one(organization: SoakOrganization, kind: JobKind, drainDeadline: () => number): Promise<void> {
    const tag = `${organization.name}-${++this.sequence}`;
    const record: PushRecord = {
      tag,
      organization: organization.name,
      kind,
      idempotencyKey: randomUUID(),
      id: null,
      answeredIds: [],
      refusals: [],
      repeats: 0,
      told: [],
      resumes: 0,
    };
    this.records.push(record);
    const body = this.pushBody(organization, record);
    await this.push(organization, record, body);
    if (record.id === null) return;
    if (this.random.chance(0.1)) {
      record.repeats += 1;
      await this.push(organization, record, body);
    }
    if (kind === 'cancel') await this.cancel(organization, record.id, drainDeadline);
    if (kind === 'stream' || this.random.chance(0.2)) await followEvents(this.target.url, organization.key, record.id, record, this.random, drainDeadline);
    else await this.await(organization, record, drainDeadline);
  }

  private pushBody(organization: SoakOrganization, record: PushRecord): Record<string, unknown> {
    const { tag } = record;
    const receiver = this.random.pick(this.receivers);
    // Every job event type: streams also subscribe to each output, a third of the jobs to the completion without outputs.
    record.subscribed = [
      'job.start',
      'job.complete',
      ...(record.kind === 'stream' ? ['job.new_output'] : []),
      ...(this.random.chance(1 / 3) ? ['job.complete.no_output'] : []),
    ];
    const hooks = record.subscribed.map((type) => ({
      type,
      url: receiver.url(`/${tag}`),
    }));
    // The budgeted organization's jobs listen for budget.warning too: the one whose end passes the threshold gets it.
    if (organization.name === BUDGETED.organization) hooks.push({ type: 'budget.warning', url: receiver.url(`/${tag}`) });
    const push = (fn: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      function: `${organization.name}/${fn}`,
      inputs,
      webhooks: hooks,
      ...extra,
    });
    switch (record.kind) {
      case 'echo':
        return push('soak-echo', { tag, value: this.random.int(0, 1_000_000) });
      case 'sleep':
        return push('soak-sleep', { tag, seconds: Math.round(this.random.between(0.5, 6) * 10) / 10 });
      case 'stream':
        record.count = this.random.int(3, 12);
        return push('soak-stream', { tag, count: record.count, pause: 0.05 });
      case 'workflow':
        return push('soak-workflow', { tag, value: this.random.int(0, 1000), owner: organization.name });
      case 'file': {
        const bytes = randomBytes(this.random.int(1, 4096));
        record.digest = createHash('sha256').update(bytes).digest('hex');
        return push('soak-file', { tag, document: { url: `data:application/octet-stream;base64,${bytes.toString('base64')}` } });
      }
      case 'cancel':
        return push('soak-sleep', { tag, seconds: 30 });
      case 'timeLimit':
        return push('soak-sleep', { tag, seconds: 20 }, { timeout: 1 });
    }
  }

  /** A push, asked again with the same Idempotency-Key while the answers are transient or missing. */
  private async push(organization: SoakOrganization, record: PushRecord, body: Record<string, unknown>): Promise<void> {
    const giveUp = Date.now() + PUSH_PATIENCE_MS;
    while (Date.now() < giveUp) {
      try {
        const answer = await request(`${this.target.url}/v2/push`, {
          method: 'POST',
          key: organization.key,
          body,
          headers: { 'idempotency-key': record.idempotencyKey },
          timeoutMs: 15_000,
        });
        if (answer.status === 200) {
          record.answeredIds.push(answer.body.id);
          record.id ??= answer.body.id;
          return;
        }
        record.refusals.push(`${answer.status} ${JSON.stringify(answer.body?.detail ?? answer.body).slice(0, 160)}`);
        if (!isTransient(answer.status)) return;
      } catch (error) {
        record.refusals.push(`no answer: ${(error as Error).name}`);
      }
      await sleep(this.random.between(200, 1_500));
    }
  }

  private async cancel(organization: SoakOrganization, id: string, drainDeadline: () => number): Promise<void> {
    await sleep(this.random.between(200, 2_000));
    while (Date.now() < drainDeadline()) {
      const answer = await request(`${this.target.url}/v2/jobs/${id}`, { method: 'DELETE', key: organization.key, timeoutMs: 10_000 }).catch(() => null);
      if (answer && !isTransient(answer.status)) return;
      await sleep(500);
    }
  }

  /** Awaits the job, asking again after a reset connection, a 5xx or the await's own timeout, until it has ended. */
  private async await(organization: SoakOrganization, record: PushRecord, drainDeadline: () => number): Promise<void> {
    while (Date.now() < drainDeadline()) {
      const answer = await request(`${this.target.awaitBase}/v2/jobs/${record.id}/await`, { key: organization.key, timeoutMs: 120_000 }).catch(() => null);
      if (answer?.status === 200 && ['finished', 'error', 'cancelled'].includes(answer.body?.status)) {
        record.told.push({ via: 'await', status: answer.body.status, error: answer.body.error, at: Date.now(), outputs: outputData(answer.body) });
        return;
      }
      await sleep(answer?.status === 200 ? 100 : 500);
    }
  }
}
