import type { DeliveryAttempt, DeliveryState, WebhookDelivery } from '../../../domain/webhookDelivery.js';
import type { DeliveryStore } from '../../../ports/store.js';
import type { SqliteDatabase } from './database.js';
import type { GroupCommit } from './groupCommit.js';

const parse = (data: string): WebhookDelivery => JSON.parse(data) as WebhookDelivery;

interface StateRow {
  state: string;
  data: string;
}

/**
 * Webhook deliveries in SQLite: the columns lists filter and order by, the record as JSON.
 * Recording an attempt reads, checks and rewrites the record in one synchronous transaction,
 * so two attempts recorded at once both land, one after the other, and none is lost.
 */
export function sqliteDeliveryStore(db: SqliteDatabase, writes: GroupCommit): DeliveryStore {
  const insert = db.prepare<[string, string, string, number, string, number, string]>(
    'INSERT INTO webhook_deliveries (id, job_id, url, sequence, state, created_at, data) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  const byId = db.prepare<[string], string>('SELECT data FROM webhook_deliveries WHERE id = ?').pluck();
  const stateById = db.prepare<[string], StateRow>('SELECT state, data FROM webhook_deliveries WHERE id = ?');
  const update = db.prepare<[string, string, string]>('UPDATE webhook_deliveries SET state = ?, data = ? WHERE id = ?');
  const recordAttempt = db.transaction((id: string, attempt: DeliveryAttempt, state: DeliveryState, nextAttemptAt: number): WebhookDelivery | null => {
    const row = stateById.get(id);
    if (!row || row.state !== 'pending') return null;
    const current = parse(row.data);
    const next: WebhookDelivery = { ...current, attempts: [...current.attempts, attempt], state, nextAttemptAt };
    update.run(state, JSON.stringify(next), id);
    return next;
  });
  const byJob = db.prepare<[string], string>('SELECT data FROM webhook_deliveries WHERE job_id = ? ORDER BY url, sequence, id').pluck();
  // `state = 'pending'` written out, so that the planner uses the partial index.
  const pending = db.prepare<[], string>("SELECT data FROM webhook_deliveries WHERE state = 'pending' ORDER BY created_at, sequence, id").pluck();

  // Read from the pending index (the backlog alone); only the AWS mode's sweeper asks.
  const overdue = db
    .prepare<[number, number, string, number], string>(
      "SELECT data FROM webhook_deliveries WHERE state = 'pending' AND json_extract(data, '$.nextAttemptAt') < ? AND (json_extract(data, '$.nextAttemptAt'), id) > (?, ?) ORDER BY json_extract(data, '$.nextAttemptAt'), id LIMIT ?",
    )
    .pluck();

  return {
    async create(delivery, options) {
      const write = () =>
        insert.run(delivery.id, delivery.jobId, delivery.url, delivery.sequence, delivery.state, delivery.createdAt, JSON.stringify(delivery)).changes > 0;
      return writes.writeAs(write, options);
    },
    async get(id) {
      const data = byId.get(id);
      return data === undefined ? null : parse(data);
    },
    async recordAttempt(id, attempt, state, nextAttemptAt) {
      return writes.write(() => recordAttempt.immediate(id, attempt, state, nextAttemptAt));
    },
    async listByJob(jobId) {
      return byJob.all(jobId).map(parse);
    },
    async listPending() {
      return pending.all().map(parse);
    },
    async listOverdue(dueBefore, limit, after) {
      return overdue.all(dueBefore, after?.nextAttemptAt ?? Number.MIN_SAFE_INTEGER, after?.id ?? '', limit).map(parse);
    },
  };
}
