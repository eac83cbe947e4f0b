import type { Command } from 'commander';
import type { ClientSettings } from '../client.js';
import { callApi } from '../client.js';

interface DeliveryView {
  id: string;
  type: string;
  url: string;
  state: string;
  attempts: { at: string; status: number | null; error: string | null }[];
}

/** `sluice webhooks ...`: the signing secret, a job's deliveries, sending them again. Over HTTP with SLUICE_API_KEY. */
export function registerWebhookCommands(program: Command, settings: () => Promise<ClientSettings>, print: (line: string) => void): void {
  const webhooks = program.command('webhooks').description('webhook signing secret and deliveries');

  webhooks
    .command('secret')
    .description("print the organization's webhook signing secret")
    .option('--rotate', 'replace it with a new one first')
    .action(async (options: { rotate?: boolean }) => {
      const { secret } = options.rotate
        ? await callApi<{ secret: string }>(await settings(), 'POST', '/v2/webhooks/secret/rotate')
        : await callApi<{ secret: string }>(await settings(), 'GET', '/v2/webhooks/secret');
      print(secret);
    });

  webhooks
    .command('list')
    .description("list a job's webhook deliveries and their attempts")
    .argument('<job_id>')
    .action(async (jobId: string) => {
      const { data } = await callApi<{ data: DeliveryView[] }>(await settings(), 'GET', `/v2/jobs/${encodeURIComponent(jobId)}/webhooks`);
      if (data.length === 0) return print('No deliveries.');
      for (const delivery of data) printDelivery(delivery, print);
    });

  webhooks
    .command('resend')
    .description("send a job's events to its webhooks again")
    .argument('<job_id>')
    .action(async (jobId: string) => {
      const { data } = await callApi<{ data: DeliveryView[] }>(await settings(), 'POST', `/v2/jobs/${encodeURIComponent(jobId)}/webhooks/resend`);
      print(data.length === 0 ? 'The job has no webhooks: nothing to send.' : `Queued ${data.length} deliver${data.length === 1 ? 'y' : 'ies'}:`);
      for (const delivery of data) printDelivery(delivery, print);
    });
}

function printDelivery(delivery: DeliveryView, print: (line: string) => void): void {
  print(`${delivery.id}  ${delivery.type}  ${delivery.url}  ${delivery.state}`);
  for (const attempt of delivery.attempts) print(`    ${attempt.at}  ${attempt.status ?? '-'}  ${attempt.error ?? 'delivered'}`);
}
