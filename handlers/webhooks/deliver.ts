import { awsApp } from '../lambdaApp.js';

export interface DeliverInput {
  deliveryId: string;
}

export interface DeliverOutput {
  state: 'pending' | 'delivered' | 'failed';
  /** When pending: how long the state machine waits before the next attempt. */
  waitSeconds: number;
}

/** One attempt of a webhook delivery, for the Step Functions loop (Deliver -> Choice -> Wait -> Deliver). */
export async function handler(input: DeliverInput): Promise<DeliverOutput> {
  const { services } = awsApp();
  const after = (await services.webhookDeliverer.attempt(input.deliveryId)) ?? (await services.webhookDeliverer.current(input.deliveryId));
  if (!after) return { state: 'failed', waitSeconds: 0 };
  const waitSeconds = after.state === 'pending' ? Math.max(1, Math.ceil((after.nextAttemptAt - Date.now() * 1000) / 1e6)) : 0;
  return { state: after.state, waitSeconds };
}
