// The BullMQ side's worker, in its own process like Sluice's replicas: it returns the job's value, as Sluice's headline function does.
import { loadBullmq } from './bullmq.js';

const { Worker } = await loadBullmq();

const port = Number(process.argv[2]);
const concurrency = Number(process.argv[3]);
const worker = new Worker('bench', async (job: { data: { value: string } }) => job.data.value, { connection: { host: '127.0.0.1', port }, concurrency });
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
