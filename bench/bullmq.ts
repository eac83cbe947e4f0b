/**
 * The slice of BullMQ's API the bench uses. BullMQ is the bench's peer, not a dependency of
 * Sluice: `npm run bench` installs it (without saving), because its optional native add-on
 * is not on every registry and would break `npm ci` there. Loaded by a name TypeScript does
 * not resolve, so type-checking needs no BullMQ either.
 */
export interface BullJob {
  id?: string;
  processedOn?: number;
  finishedOn?: number;
  waitUntilFinished(events: BullQueueEvents): Promise<unknown>;
}

export interface BullQueue {
  add(name: string, data: object, options: { removeOnComplete: boolean }): Promise<BullJob>;
  getJob(id: string): Promise<BullJob | undefined>;
  setMaxListeners(count: number): void;
  close(): Promise<void>;
}

export interface BullQueueEvents {
  waitUntilReady(): Promise<unknown>;
  setMaxListeners(count: number): void;
  close(): Promise<void>;
}

export interface BullWorker {
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}

interface Connection {
  connection: { host: string; port: number };
}

export interface BullMQ {
  Queue: new (name: string, options: Connection) => BullQueue;
  QueueEvents: new (name: string, options: Connection) => BullQueueEvents;
  Worker: new (name: string, processor: (job: { data: { value: string } }) => Promise<unknown>, options: Connection & { concurrency: number }) => BullWorker;
}

export async function loadBullmq(): Promise<BullMQ> {
  const name = 'bullmq';
  return (await import(name)) as BullMQ;
}
