import { ANSWER_BYTES } from '../../shared/domain/answerBudget.js';
import { openEventStream, type ReadEvent } from '../e2e/support/eventStream.js';

/**
 * A job too large for one answer (seven outputs of 0.9 MB: 6.3 MB, past Lambda's 6 MB), and how
 * a client reads it whole through each route, one answer's budget at a time (docs/api.md, "Large jobs").
 */
export const SEVEN_BIG_SOURCE = `
@sluice.function(name="seven-big")
def seven_big(count: int) -> Iterator[str]:
    for n in range(count):
        yield str(n) * 900_000
`;

/** What the job's outputs are, shortened for a readable failure: `<first character>×<length>`. */
export const SEVEN_BIG_OUTPUTS = Array.from({ length: 7 }, (_, n) => `${n}×900000`);
export const shortened = (data: unknown) => (typeof data === 'string' ? `${data[0]}×${data.length}` : JSON.stringify(data));

/** An answer as a client sees it, with its size as Lambda counts it (the body escaped as a JSON string). */
export interface SizedAnswer {
  status: number;
  bytes: number;
  body: any;
}

export async function sizedGet(url: string, key: string): Promise<SizedAnswer> {
  const response = await fetch(url, { headers: { 'x-api-key': key } });
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(JSON.stringify(text)), body: text ? JSON.parse(text) : undefined };
}

/** Reads a job route (GET or await) from offset 0, going on at each `next_output_offset`: every answer, and all the outputs. */
export async function readOnByOffset(routeUrl: string, key: string): Promise<{ answers: SizedAnswer[]; outputs: string[] }> {
  const answers: SizedAnswer[] = [];
  const outputs: string[] = [];
  for (let offset: number | undefined = 0; offset !== undefined && answers.length < 20;) {
    const answer = await sizedGet(`${routeUrl}?offset=${offset}`, key);
    answers.push(answer);
    if (answer.status !== 200) break;
    outputs.push(...answer.body.outputs.map((output: any) => shortened(output.data)));
    offset = answer.body.next_output_offset;
  }
  return { answers, outputs };
}

/** Follows a job's event stream to `done`, reconnecting with Last-Event-ID as a client must; each connection's status. */
export async function followToDone(eventsUrl: string, key: string): Promise<{ statuses: number[]; events: ReadEvent[] }> {
  const events: ReadEvent[] = [];
  const statuses: number[] = [];
  while (events.at(-1)?.event !== 'done' && statuses.length < 40) {
    const stream = await openEventStream(eventsUrl, key, events.at(-1)?.id);
    statuses.push(stream.status);
    if (stream.status !== 200) break;
    events.push(...(await stream.rest()));
  }
  return { statuses, events };
}

/** The list budget, for specs that check every answer keeps to one. */
export { ANSWER_BYTES };
