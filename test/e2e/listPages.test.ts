import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseProblems } from '../support/sieveSchemas.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until, waitForBuild, writeFunctionDir } from './support/testService.js';

const JOBS = 20;
const OUTPUTS = 25;
const OUTPUT_KB = 900;
const INPUT_BYTES = 2 * 1024 * 1024;

const FUNCTIONS = {
  // Each output just under SLUICE_MAX_OUTPUT_MB (1 MB by default), so each stays inline in its job.
  chunks: `import sluice
from typing import Iterator

@sluice.function(name="chunks")
def chunks(blob: str, tag: str, count: int, kilobytes: int) -> Iterator[str]:
    for index in range(count):
        yield chr(97 + index % 26) * (kilobytes * 1024)
`,
  small: `import sluice

@sluice.function(name="small")
def run() -> dict:
    return {"answer": 42}
`,
};

const percentile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))] as number;

describe('list pages of jobs holding hundreds of MB (generators of ~1 MB outputs, large inputs), and another organization meanwhile', () => {
  let service: TestService;
  let otherKey: string;
  const jobIds: string[] = [];
  const call = (method: string, path: string, body?: unknown, key = service.key) => api(service.url, key, method, path, body);

  beforeAll(async () => {
    service = await startTestService({ SLUICE_DEFAULT_MAX_REPLICAS: '2' });
    otherKey = await service.createOrganization('neighbour');
    for (const [name, source] of Object.entries(FUNCTIONS)) {
      const [key, owner] = name === 'small' ? [otherKey, 'neighbour'] : [service.key, 'local'];
      const deployed = await deployDirectory(service, await writeFunctionDir({ 'main.py': source }), key, owner);
      await waitForBuild(service, `${owner}/${name}`, deployed.body.version.id, key);
    }
    const blob = 'b'.repeat(INPUT_BYTES);
    for (let index = 0; index < JOBS; index++) {
      const { body } = await call('POST', '/v2/push', {
        function: 'local/chunks',
        inputs: { blob, tag: `job-${index}`, count: OUTPUTS, kilobytes: OUTPUT_KB },
      });
      jobIds.push(body.id);
    }
    await until(async () => (await call('GET', '/v2/jobs?status=finished&limit=100')).body.data.length === JOBS, 120_000, 250);
    expect((await call('POST', '/v2/push', { function: 'neighbour/small', inputs: {} }, otherKey)).status).toBe(200);
  }, 180_000);
  afterAll(() => service.close());

  it('answers a page quickly and small: each large output and input is null there, with a note where to get it', async () => {
    const started = performance.now();
    const response = await fetch(`${service.url}/v2/jobs?limit=100`, { headers: { 'x-api-key': service.key } });
    const text = await response.text();
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(text.length).toBeLessThan(1024 * 1024); // the jobs hold ~900 MB of outputs and 40 MB of inputs
    expect(elapsed).toBeLessThan(1_000);
    const page = JSON.parse(text);
    expect(responseProblems('v2_list_jobs', 200, page)).toEqual([]);
    expect(page.data).toHaveLength(JOBS);
    for (const job of page.data) {
      expect(job.status).toBe('finished');
      expect(job.inputs).toMatchObject({ blob: null, count: OUTPUTS, kilobytes: OUTPUT_KB });
      expect(job.inputs.tag).toMatch(/^job-\d+$/);
      expect(job.outputs).toHaveLength(OUTPUTS);
      for (const output of job.outputs) {
        expect(output).toMatchObject({ type: 'str', data: null });
        expect(output.description).toBe(`Left out of this list (${OUTPUT_KB * 1024 + 2} bytes): GET /v2/jobs/${job.id} returns it.`);
      }
    }
  }, 30_000);

  it('lists the same small pages by function and by version', async () => {
    const pages = [
      ['list_function_jobs', '/v2/functions/local/chunks/jobs?limit=100'],
      ['get_function_jobs_by_version_slug', '/v2/functions/local/chunks/versions/latest/jobs?limit=100'],
    ] as const;
    for (const [operationId, path] of pages) {
      const { status, body } = await call('GET', path);
      expect(status).toBe(200);
      expect(responseProblems(operationId, 200, body)).toEqual([]);
      expect(body.data).toHaveLength(JOBS);
      expect(JSON.stringify(body).length).toBeLessThan(1024 * 1024);
      expect(body.data[0].inputs.blob).toBeNull();
      expect(body.data[0].outputs.map((output: { data: unknown }) => output.data)).toEqual(Array(OUTPUTS).fill(null));
    }
  }, 30_000);

  it('returns the whole job, every output and input in full, from GET /v2/jobs/{id} read on at each next_output_offset', async () => {
    const job = (await call('GET', `/v2/jobs/${jobIds[0]}`)).body;
    expect(job.inputs.blob).toHaveLength(INPUT_BYTES);
    // One answer holds 4 MB of values (docs/api.md, "Large jobs"): the rest come with `offset`.
    for (let offset = job.next_output_offset; offset !== undefined;) {
      const more = (await call('GET', `/v2/jobs/${jobIds[0]}?offset=${offset}`)).body;
      job.outputs.push(...more.outputs);
      offset = more.next_output_offset;
    }
    expect(job.outputs).toHaveLength(OUTPUTS);
    const expected = job.outputs.map((_: unknown, index: number) => ({ type: 'str', length: OUTPUT_KB * 1024, first: String.fromCharCode(97 + (index % 26)) }));
    expect(job.outputs.map((output: { type: string; data: string }) => ({ type: output.type, length: output.data.length, first: output.data[0] }))).toEqual(
      expected,
    );
    expect(job.outputs.every((output: { data: string }) => output.data === output.data[0]!.repeat(OUTPUT_KB * 1024))).toBe(true);
  }, 30_000);

  it('keeps another organization’s requests within a few tens of milliseconds while pages are listed again and again', async () => {
    let listing = true;
    const pageTimes: number[] = [];
    const owner = (async () => {
      while (listing) {
        const started = performance.now();
        expect((await call('GET', '/v2/jobs?limit=100')).status).toBe(200);
        pageTimes.push(performance.now() - started);
      }
    })();
    const neighbourTimes: number[] = [];
    for (let index = 0; index < 100; index++) {
      const started = performance.now();
      expect((await call('GET', '/v2/jobs', undefined, otherKey)).status).toBe(200);
      neighbourTimes.push(performance.now() - started);
    }
    listing = false;
    await owner;
    expect(pageTimes.length).toBeGreaterThan(5);
    expect(percentile(neighbourTimes, 0.99)).toBeLessThan(50);
    expect(percentile(pageTimes, 0.5)).toBeLessThan(250);
  }, 60_000);
});
