import { withSignedFileUrls, type SignFileUrl } from './fileOutputs.js';
import type { WebhookDelivery } from './webhookDelivery.js';
import type { WireInputOutput } from './wire/common.js';

type Signable = Pick<WebhookDelivery, 'jobId' | 'eventType' | 'payload' | 'outputIndex'>;

/** The outputs' File URLs signed now; null when none changed. */
async function signed(jobId: string, outputs: { index: number; output: WireInputOutput }[], sign: SignFileUrl): Promise<WireInputOutput[] | null> {
  const fresh = await withSignedFileUrls(
    jobId,
    outputs.map(({ index, output }) => ({ index, type: output.type, data: output.data })),
    sign,
  );
  if (fresh.every((output, at) => output.data === outputs[at]?.output.data)) return null;
  return fresh.map((output, at) => ({ ...(outputs[at]?.output as WireInputOutput), data: output.data }));
}

/**
 * The body an attempt of a delivery sends: its outputs' File URLs signed at that attempt, so that
 * a retry hours later still carries URLs a receiver can download (a signature expires; see
 * fileOutputs.ts). The stored payload keeps the key-checked routes, which are never sent. A body
 * with no File of the job (or stored before payloads kept the routes) is sent exactly as stored.
 */
export async function payloadWithSignedFileUrls(delivery: Signable, sign: SignFileUrl): Promise<string> {
  const { type, body } = JSON.parse(delivery.payload) as { type: string; body: Record<string, unknown> };
  if ((type === 'job.start' || type === 'job.complete') && Array.isArray(body.outputs)) {
    // These carry every output of the job from the first, in order: each one's index is its place.
    const outputs = await signed(
      delivery.jobId,
      (body.outputs as WireInputOutput[]).map((output, index) => ({ index, output })),
      sign,
    );
    return outputs ? JSON.stringify({ type, body: { ...body, outputs } }) : delivery.payload;
  }
  if (type === 'job.new_output' && typeof body.output === 'string' && delivery.outputIndex !== undefined) {
    const outputs = await signed(delivery.jobId, [{ index: delivery.outputIndex, output: JSON.parse(body.output) as WireInputOutput }], sign);
    return outputs ? JSON.stringify({ type, body: { ...body, output: JSON.stringify(outputs[0]) } }) : delivery.payload;
  }
  return delivery.payload;
}
