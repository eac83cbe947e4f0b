import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PYTHON_SDK_DIR } from '../../shared/packaging/inspectFunctions.js';
import { py } from '../support/python.js';

const python = process.env.SLUICE_PYTHON ?? 'python3';

/** Answers each await with the next status of `answers`, as a service that stops and comes back would. */
function scriptedService(answers: number[]) {
  const seen: number[] = [];
  const server = createServer((request, response) => {
    const status = answers[seen.length] ?? 200;
    seen.push(status);
    if (status === 200)
      return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'j1', status: 'finished', outputs: [] }));
    response
      .writeHead(status, { 'content-type': 'application/json', 'retry-after': '5' })
      .end(JSON.stringify({ detail: 'The service is stopping; try again shortly.' }));
  });
  return { server, seen };
}

function wait(url: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = py`
    import sluice._client as client
    client.RESTART_PAUSE_S = 0.05
    try:
        print(client.Client("${url}", "key").wait("j1")["status"])
    except client.ApiError as error:
        print("ApiError", error.status)
  `;
  return new Promise((resolve) => {
    execFile(python, ['-c', program], { env: { ...process.env, PYTHONPATH: PYTHON_SDK_DIR } }, (error, stdout, stderr) =>
      resolve({ code: error ? 1 : 0, stdout, stderr }),
    );
  });
}

describe('the Python SDK waiting for a job', () => {
  const services: ReturnType<typeof scriptedService>[] = [];
  const start = async (answers: number[]) => {
    const service = scriptedService(answers);
    services.push(service);
    await new Promise<void>((resolve) => service.server.listen(0, '127.0.0.1', resolve));
    return { ...service, url: `http://127.0.0.1:${(service.server.address() as AddressInfo).port}` };
  };
  afterAll(() => services.forEach(({ server }) => server.close()));

  it('asks again when the service answers 503 while it stops, and gets the job once it is back', async () => {
    const service = await start([503, 503, 200]);
    expect((await wait(service.url)).stdout.trim()).toBe('finished');
    expect(service.seen).toEqual([503, 503, 200]);
  });

  it('still fails at once on an error that is not a restart', async () => {
    const service = await start([404]);
    expect((await wait(service.url)).stdout.trim()).toBe('ApiError 404');
    expect(service.seen).toEqual([404]);
  });
});
