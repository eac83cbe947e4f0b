// The bench's headline job, the same on both sides: it returns its input, a short string (BullMQ's
// worker returns job.data.value), so Sluice's output path is measured; and the raw push of it.

/** The headline function's name under local/, and the value each job returns. */
export const HEADLINE_FUNCTION = 'echo';
export const HEADLINE_VALUE = 'sluice-bench';

/** The headline function, under its `@sluice.function(...)` (bench/jobShapes.ts, deployWarm). */
export const headlineDefinition = `def ${HEADLINE_FUNCTION}(value: str) -> str:\n    return value\n`;

/** A push of the headline job, as POST /v2/push's body. */
export const headlineBody = () => ({ function: `local/${HEADLINE_FUNCTION}`, inputs: { value: HEADLINE_VALUE } });

/** `POST /v2/push` of `body` (the headline job by default), as bytes to write on a keep-alive socket. */
export function pushRequest(target: URL, apiKey: string, body: unknown = headlineBody()): Buffer {
  const text = JSON.stringify(body);
  return Buffer.from(
    `POST /v2/push HTTP/1.1\r\nHost: ${target.host}\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** The job id of a push answer: its first field. */
export const pushedJobId = (answer: string): string | undefined => /"id":"([^"]+)"/.exec(answer)?.[1];
