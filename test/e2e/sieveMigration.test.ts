/**
 * docs/migrating-from-sieve.md, checked: function files written exactly as Sieve's documentation
 * writes them deploy unchanged, and a separate Python program calls them the way Sieve's docs do,
 * with only SIEVE_API_URL and SIEVE_API_KEY pointing at this service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { py } from '../support/python.js';
import { runSdkProgram } from '../support/sdkProgram.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, waitForBuild, writeFunctionDir } from './support/testService.js';
import { startWebhookReceiver } from './support/webhookReceiver.js';

const SHOUT = py`
  import os
  import sys

  import sieve

  metadata = sieve.Metadata(
      title="Shout",
      description="Shouts text into a file",
      code_url="https://example.com/shout",
      image=sieve.Image(url="https://example.com/shout.png"),
      tags=["Text"],
      readme=open("README.md", "r").read(),
  )


  @sieve.function(
      name="shout",
      python_packages=[],
      gpu=sieve.gpu.T4(),
      run_commands=[
          "echo preparing the suffix",
          "mkdir -p $VIRTUAL_ENV/share/shout && printf '!' > $VIRTUAL_ENV/share/shout/suffix",
      ],
      metadata=metadata,
  )
  def shout(text: str, times: int = 1) -> sieve.File:
      """
      :param text: what to shout
      :param times: how many times
      """
      with open(os.path.join(sys.prefix, "share", "shout", "suffix")) as f:
          suffix = f.read()
      with open("shouted.txt", "w") as out:
          out.write(" ".join([text.upper() + suffix] * times))
      return sieve.File(path="shouted.txt")
`;

const WORDS = py`
  import uuid

  import sieve


  @sieve.Model(name="words", python_packages=[], restart_on_error=False)
  class Words:
      def __setup__(self):
          self.marker = "*"
          self.replica = uuid.uuid4().hex  # which replica: a sandboxed one's pid is the same in each

      def __predict__(self, text: str):
          if not text:
              raise sieve.FatalException("nothing to split")
          if text == "replica":
              yield self.replica
          if text == "oops":
              raise ValueError("not a fatal one")
          for word in text.split():
              yield self.marker + word
`;

/** The client program, as Sieve's docs write one: run, push, futures, streaming outputs, webhooks. */
const CLIENT = py`
  import concurrent.futures
  import json
  import sys

  import sieve

  shout = sieve.function.get("local/shout")
  words = sieve.function.get("local/words")
  report = {}

  file = shout.run("hello", 2)
  report["run_type"] = type(file).__name__
  with open(file.path) as f:
      report["run_text"] = f.read()

  future = shout.push(text="quiet", webhooks=[{"type": "job.complete", "url": sys.argv[1]}])
  report["push_id"] = future.job_id
  with open(future.result().path) as f:
      report["push_text"] = f.read()
  report["push_status"] = future.status

  futures = [shout.push("n", n) for n in (1, 2, 3)]
  report["as_completed"] = sorted(open(f.result().path).read() for f in concurrent.futures.as_completed(futures))
  with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
      report["pool"] = [open(f.path).read() for f in pool.map(lambda t: shout.run(t), ["a", "b", "c"])]

  report["stream_run"] = list(words.run("one two three"))
  report["stream_outputs"] = list(words.push("four five").outputs)

  try:
      list(words.run(""))
  except sieve.RemoteError as error:
      report["fatal"] = error.error.splitlines()[0]
  try:
      shout.run("a", 1, 2)
  except TypeError as error:
      report["too_many"] = str(error)

  print(json.dumps(report))
`;

describe('a Sieve user moving over: Sieve function files and Sieve client code, unchanged', () => {
  let service: TestService;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    service = await startTestService({ SLUICE_EMULATE_GPUS: 'true', SLUICE_DEFAULT_MAX_REPLICAS: '3' });
    const files: Record<string, string>[] = [{ 'main.py': SHOUT, 'README.md': '# Shout\n\nShouts text.\n' }, { 'model.py': WORDS }];
    for (const fileSet of files) {
      const deployed = await deployDirectory(service, await writeFunctionDir(fileSet));
      expect(deployed.status).toBe(201);
      const built = await waitForBuild(service, `local/${deployed.body.function.name}`, deployed.body.version.id);
      expect(built.build_status).toBe('ready');
    }
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });

  it('deploys the Sieve file as written: GPU, metadata, the README beside it, and sieve.File types', async () => {
    const fn = (await api(service.url, service.key, 'GET', '/v2/functions/local/shout')).body;
    expect(fn).toMatchObject({
      title: 'Shout',
      description: 'Shouts text into a file',
      code_url: 'https://example.com/shout',
      cover_image_url: 'https://example.com/shout.png',
      tags: ['Text'],
      readme: '# Shout\n\nShouts text.\n',
    });
    expect(fn.latest_version).toMatchObject({ compute_type: 't4', gpu: true });
    expect(fn.latest_version.inputs.map((input: any) => [input.name, input.type])).toEqual([
      ['text', 'str'],
      ['times', 'int'],
    ]);
    expect(fn.latest_version.outputs.map((output: any) => output.type)).toEqual(['sieve.File']);
  });

  it('runs run_commands at build, in order, in the environment, their output in the build log', async () => {
    const fn = (await api(service.url, service.key, 'GET', '/v2/functions/local/shout')).body;
    const logs = (await api(service.url, service.key, 'GET', `/v2/logs?version_id=${fn.latest_version.id}`)).body;
    const lines: string[] = logs.data.flatMap((group: any) => group.logs.map((log: any) => log.message));
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(at('Running build command 1 of 2: echo preparing the suffix')).toBeGreaterThan(-1);
    expect(at('preparing the suffix')).toBeLessThan(at('Running build command 2 of 2'));
    expect(lines).toContain('preparing the suffix');
  });

  it('calls the functions from a separate program with only SIEVE_API_URL and SIEVE_API_KEY, as Sieve documents', async () => {
    const result = await runSdkProgram(CLIENT, service, [receiver.url('/done')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      run_type: 'File',
      run_text: 'HELLO! HELLO!',
      push_text: 'QUIET!',
      push_status: 'finished',
      as_completed: ['N!', 'N! N!', 'N! N! N!'],
      pool: ['A!', 'B!', 'C!'],
      stream_run: ['*one', '*two', '*three'],
      stream_outputs: ['*four', '*five'],
      fatal: 'FatalException: nothing to split',
      too_many: expect.stringContaining('local/shout takes 2 inputs (text, times), 3 positional arguments were given'),
    });
    const hooks = receiver.at('/done');
    expect(hooks.map((hook) => [hook.body.type, hook.body.body.job_id])).toEqual([['job.complete', report.push_id]]);
  }, 120_000);

  it('ends a job that raised FatalException in error and restarts its replica, though restart_on_error is off', async () => {
    const run = async (text: string) => {
      const pushed = (await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/words', inputs: { text } })).body;
      return (await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.id}/await`)).body;
    };
    const before = await run('replica');
    expect((await run('oops')).status).toBe('error');
    const kept = await run('replica');
    expect(kept.outputs[0].data).toBe(before.outputs[0].data);
    const fatal = await run('');
    expect(fatal.status).toBe('error');
    expect(fatal.error).toMatch(/^FatalException: nothing to split/);
    const after = await run('replica');
    expect(after.status).toBe('finished');
    expect(after.outputs[0].data).not.toBe(before.outputs[0].data);
  });
});
