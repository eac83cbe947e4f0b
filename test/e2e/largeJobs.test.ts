import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceClient } from '../../clients/typescript/src/index.js';
import { JOB_ANSWER_VALUES_BYTES } from '../../shared/domain/answerBudget.js';
import { py } from '../support/python.js';
import { runSdkProgram } from '../support/sdkProgram.js';
import { ANSWER_BYTES, followToDone, readOnByOffset, SEVEN_BIG_OUTPUTS, SEVEN_BIG_SOURCE, shortened, sizedGet } from '../support/largeJob.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';

/** An answer holds the job's values within the budget, plus its envelope. */
const JOB_ANSWER_CEILING = JOB_ANSWER_VALUES_BYTES + 64 * 1024;

/**
 * A job too large for one answer, read locally through every route: each answer within the
 * byte budget both modes share, the rest read on with `offset` (docs/api.md, "Large jobs").
 * test/acceptance/sameOnBothModes.test.ts reads the same job on aws:local.
 */
describe('a job of seven 0.9 MB outputs, read through every route', () => {
  let service: TestService;
  let jobId = '';
  let versionId = '';

  beforeAll(async () => {
    service = await startTestService();
    const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': `from typing import Iterator\nimport sluice\n${SEVEN_BIG_SOURCE}` }));
    await waitForBuild(service, 'local/seven-big', deployed.body.version.id);
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/seven-big', inputs: { count: 7 } });
    ({ id: jobId, model_id: versionId } = pushed.body);
    expect((await api(service.url, service.key, 'GET', `/v2/jobs/${jobId}/await`)).body.status).toBe('finished');
  }, 120_000);
  afterAll(() => service?.close());

  it('answers GET with the first outputs that fit, saying where the rest begin, and GET with that offset with the rest', async () => {
    const read = await readOnByOffset(`${service.url}/v2/jobs/${jobId}`, service.key);
    expect(read.outputs).toEqual(SEVEN_BIG_OUTPUTS);
    expect(read.answers.map((answer) => [answer.status, answer.body.outputs.length, answer.body.outputs_truncated, answer.body.next_output_offset])).toEqual([
      [200, 4, true, 4],
      [200, 3, undefined, undefined],
    ]);
    for (const answer of read.answers) expect(answer.bytes).toBeLessThan(JOB_ANSWER_CEILING);
  });

  it('answers await the same way, and await with Sieve’s offset reads on', async () => {
    const read = await readOnByOffset(`${service.url}/v2/jobs/${jobId}/await`, service.key);
    expect(read.outputs).toEqual(SEVEN_BIG_OUTPUTS);
    expect(read.answers.map((answer) => answer.body.outputs.length)).toEqual([4, 3]);
    for (const answer of read.answers) expect(answer.bytes).toBeLessThan(JOB_ANSWER_CEILING);
  });

  it('lists the job on every list, its large outputs left out, each page within the budget', async () => {
    for (const path of ['/v2/jobs', '/v2/functions/local/seven-big/jobs', `/v2/functions/local/seven-big/versions/${versionId}/jobs`]) {
      const page = await sizedGet(`${service.url}${path}`, service.key);
      expect(page.status, path).toBe(200);
      expect(page.bytes).toBeLessThan(ANSWER_BYTES);
      const listed = page.body.data.find((job: any) => job.id === jobId);
      expect(listed.outputs.map((output: any) => output.data)).toEqual(Array(7).fill(null));
    }
  });

  it('streams all seven outputs, then `done` with the job as GET answers it', async () => {
    const { statuses, events } = await followToDone(`${service.url}/v2/jobs/${jobId}/events`, service.key);
    expect(statuses).toEqual([200]);
    expect(events.filter((event) => event.event === 'output').map((event) => shortened(event.data.data))).toEqual(SEVEN_BIG_OUTPUTS);
    expect(events.at(-1)!.data).toEqual((await api(service.url, service.key, 'GET', `/v2/jobs/${jobId}`)).body);
  });

  it('hands every output to a Python SDK user, as one result and as a stream', async () => {
    const program = py`
      import json
      import sieve

      big = sieve.function.get("local/seven-big")
      ran = [f"{o[0]}×{len(o)}" for o in big.run(7)]
      pushed = big.push(7)
      streamed = [f"{o[0]}×{len(o)}" for o in pushed.outputs]
      print(json.dumps({"run": ran, "outputs": streamed}))
    `;
    const result = await runSdkProgram(program, service);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ run: SEVEN_BIG_OUTPUTS, outputs: SEVEN_BIG_OUTPUTS });
  }, 60_000);

  it('hands every output to a TypeScript client user, from await, job and the stream’s done', async () => {
    const client = new SluiceClient({ url: service.url, apiKey: service.key });
    const outputsOf = (job: { outputs?: unknown[] }) => (job.outputs ?? []).map((output: any) => shortened(output.data));
    const awaited = await client.await(jobId);
    expect(outputsOf(awaited)).toEqual(SEVEN_BIG_OUTPUTS);
    expect(awaited).not.toHaveProperty('next_output_offset');
    expect(outputsOf(await client.job(jobId))).toEqual(SEVEN_BIG_OUTPUTS);
    let done: { outputs?: unknown[] } = {};
    for await (const event of client.events(jobId)) if (event.type === 'done') done = event.job;
    expect(outputsOf(done)).toEqual(SEVEN_BIG_OUTPUTS);
  });
});
