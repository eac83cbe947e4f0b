// Jobs of other shapes than the headline, on the same service after its rounds: what an output
// costs the service (issue 33: a job with outputs should cost at most 1.2x one without).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import type { createJsonClient } from './httpClient.js';
import { startLoadGenerator } from './loadGenerator.js';
import { HEADLINE_FUNCTION, HEADLINE_VALUE } from './pushRequest.js';

type Client = ReturnType<typeof createJsonClient>;

/** A shape's one round: its rate and the service's CPU per job. */
export interface ShapeRound {
  name: string;
  jobsPerSecond: number;
  serviceMicrosPerJob: number;
}

interface Shape {
  name: string;
  fn: string;
  /** The function's body under `@sluice.function(...)`; none: the headline function, its replicas set. */
  definition?: string;
  replicas?: number;
  inputs?: Record<string, unknown>;
}

const SHAPES: Shape[] = [
  { name: 'returns nothing', fn: 'noop', definition: 'def noop() -> None:\n    pass\n' },
  { name: 'streams 10 outputs', fn: 'stream10', definition: 'def stream10():\n    for index in range(10):\n        yield str(index)\n' },
  // More replicas give more only until the service's CPU is the bound (issue 33).
  { name: 'headline on 4 replicas', fn: HEADLINE_FUNCTION, replicas: 4, inputs: { value: HEADLINE_VALUE } },
];

/** Sets local/<fn>'s replica bounds (min = max = `replicas`) and waits until that many run. */
export async function holdReplicas(call: Client, fn: string, replicas: number): Promise<void> {
  const { status } = await call('POST', `/v2/functions/local/${fn}/versions/latest/edit`, { minimum_replicas: replicas, maximum_replicas: replicas });
  if (status !== 200) throw new Error(`editing local/${fn}'s replica bounds answered ${status}`);
  for (;;) {
    const workers = (
      await call<{ current_workers?: { idle: number; active: number; starting: number; setup: number } }>('GET', `/v2/functions/local/${fn}/versions/latest`)
    ).body.current_workers;
    if (workers && workers.idle + workers.active === replicas && workers.starting + workers.setup === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `definition` as local/<fn> with `replicas` warm replicas, once they are all idle. */
export async function deployWarm(call: Client, workDir: string, fn: string, definition: string, replicas: number): Promise<void> {
  const directory = join(workDir, `${fn}-function`);
  await mkdir(directory, { recursive: true });
  await writeFile(
    join(directory, 'main.py'),
    `import sluice\n\n@sluice.function(name="${fn}", minimum_replicas=${replicas}, maximum_replicas=${replicas})\n${definition}`,
  );
  const inspected = await inspectFunctions(directory, 'python3');
  if (!inspected.ok) throw new Error(inspected.errors.join('; '));
  const deployed = await call('POST', `/v2/functions/local/${fn}/versions`, {
    metadata: inspected.functions[0],
    bundle: (await packDirectory(directory)).toString('base64'),
  });
  if (deployed.status >= 300) throw new Error(`deploying ${fn}: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  for (;;) {
    const version = (await call<WireVersion>('GET', `/v2/functions/local/${fn}/versions/latest`)).body;
    if (version.build_status === 'error') throw new Error(`local/${fn} failed to build`);
    if (version.current_workers?.idle === replicas) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Each shape deployed with `replicas` warm replicas, then one round of `jobs` (after `warmup`)
 * from the same lean generator as the headline's, `inFlight` at once; `serviceCpuSeconds` reads
 * the service's CPU around it.
 */
export async function benchShapes(
  target: { url: string; key: string; call: Client; workDir: string },
  options: { replicas: number; inFlight: number; jobs: number; warmup: number },
  serviceCpuSeconds: () => Promise<number>,
): Promise<ShapeRound[]> {
  const rounds: ShapeRound[] = [];
  for (const shape of SHAPES) {
    const replicas = shape.replicas ?? options.replicas;
    if (shape.definition) await deployWarm(target.call, target.workDir, shape.fn, shape.definition, replicas);
    else await holdReplicas(target.call, shape.fn, replicas);
    const body = JSON.stringify({ function: `local/${shape.fn}`, inputs: shape.inputs ?? {} });
    const generator = await startLoadGenerator<{ jobs: number; seconds: number; failures: number; firstFailures: string[] }>('./jobLoad.ts', [
      target.url,
      target.key,
      String(options.inFlight),
      String(options.jobs),
      String(options.warmup),
      body,
    ]);
    let before = 0;
    const load = await generator.run(async () => void (before = await serviceCpuSeconds()));
    const cpu = (await serviceCpuSeconds()) - before;
    await generator.close();
    if (load.failures > 0) throw new Error(`${load.failures} ${shape.fn} jobs failed: ${load.firstFailures.join('; ')}`);
    rounds.push({ name: shape.name, jobsPerSecond: load.jobs / load.seconds, serviceMicrosPerJob: (cpu * 1e6) / load.jobs });
    // Its replicas stop: the next shape's round has the cores to itself.
    await target.call('POST', `/v2/functions/local/${shape.fn}/versions/latest/edit`, { minimum_replicas: 0, maximum_replicas: 0 });
  }
  return rounds;
}
