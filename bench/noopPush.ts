// The raw request the bench's generators push a no-op job with, and the id its answer names.

/** `POST /v2/push` of a local/noop job, as bytes to write on a keep-alive socket. */
export function noopPushRequest(target: URL, apiKey: string): Buffer {
  const body = JSON.stringify({ function: 'local/noop', inputs: {} });
  return Buffer.from(
    `POST /v2/push HTTP/1.1\r\nHost: ${target.host}\r\nX-API-Key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** The job id of a push answer: its first field. */
export const pushedJobId = (answer: string): string | undefined => /"id":"([^"]+)"/.exec(answer)?.[1];
