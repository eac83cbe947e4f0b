// The examples that install packages (video, audio, image, ML), timed as a user meets them:
// deploy to ready, the first job with no replica running, and jobs on a warm replica.
import { join } from 'node:path';
import { uploadBundle } from '../cli/uploadBundle.js';
import type { WireJob } from '../shared/domain/wire/job.js';
import type { WireVersion } from '../shared/domain/wire/version.js';
import { inspectFunctions } from '../shared/packaging/inspectFunctions.js';
import { packDirectory } from '../shared/packaging/packDirectory.js';
import { builtPython, EXAMPLES_DIR, heldOutDigits, makeClip } from '../test/support/builtEnvironment.js';
import { twoColourPng } from '../test/support/media/png.js';
import { sineWav } from '../test/support/media/wav.js';
import { createJsonClient } from './httpClient.js';
import { startServiceProcess } from './serviceProcess.js';
import { percentile, wallMs } from './stats.js';

type Upload = (bytes: Buffer, name: string) => Promise<{ upload_id: string; name: string }>;

/** Each example with a realistic input; `python` is the version's built environment, to make inputs with. */
const WORKLOADS: { folder: string; input: string; inputs: (python: string, upload: Upload) => Promise<Record<string, unknown>> }[] = [
  {
    folder: 'video',
    input: '4 s 320x240 MP4, 4 thumbnails',
    inputs: async (python, upload) => ({ video: await upload(await makeClip(python), 'clip.mp4'), count: 4, width: 160 }),
  },
  {
    folder: 'audio',
    input: '10 s 44.1 kHz WAV, to 16 kHz',
    inputs: async (_, upload) => ({ audio: await upload(sineWav({ frequency: 440, amplitude: 0.5, seconds: 10, rate: 44_100 }), 'sine.wav') }),
  },
  {
    folder: 'image',
    input: '1920x1080 PNG, to 256 px',
    inputs: async (_, upload) => ({ image: await upload(twoColourPng(1920, 1080, [220, 30, 30], [30, 30, 220]), 'image.png'), size: 256 }),
  },
  { folder: 'digits', input: 'one 8x8 digit', inputs: async (python) => ({ pixels: (await heldOutDigits(python, 1))[0]?.pixels }) },
];

const WARM_JOBS = 10;

export interface WorkloadFigures {
  example: string;
  input: string;
  /** Seconds from the deploy request to `ready`: a new environment (pip install), then the same packages again (reused). */
  deployToReady: number;
  redeployToReady: number;
  /** Milliseconds from push to the first output, with no replica running: start, imports, __setup__, the job. */
  coldStart: number;
  /** Milliseconds from push to the first output on a warm replica, median and worst of WARM_JOBS. */
  warmP50: number;
  warmMax: number;
}

/** Times each example on a service of its own process; an example whose build fails is reported and skipped. */
export async function benchWorkloads(report: (line: string) => void): Promise<WorkloadFigures[]> {
  const service = await startServiceProcess();
  const call = createJsonClient(service.url, service.key, 4);
  const settings = { url: service.url, apiKey: service.key };
  const upload: Upload = async (bytes, name) => ({ upload_id: await uploadBundle(settings, bytes), name });
  const figures: WorkloadFigures[] = [];
  try {
    for (const workload of WORKLOADS) {
      const directory = join(EXAMPLES_DIR, workload.folder);
      const inspected = await inspectFunctions(directory, 'python3');
      if (!inspected.ok) throw new Error(inspected.errors.join('; '));
      const metadata = inspected.functions[0] as { name: string };
      const fn = `local/${metadata.name}`;
      const deploy = async () => {
        const started = wallMs();
        const bundle = await uploadBundle(settings, await packDirectory(directory));
        const deployed = await call<{ version: { id: string } }>('POST', `/v2/functions/${fn}/versions`, { metadata, upload_id: bundle });
        for (;;) {
          const version = (await call<WireVersion>('GET', `/v2/functions/${fn}/versions/${deployed.body.version.id}`)).body;
          if (version.build_status === 'ready') return { id: version.id, seconds: (wallMs() - started) / 1000 };
          if (version.build_status === 'error') return { id: version.id, seconds: Number.NaN };
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const first = await deploy();
      if (Number.isNaN(first.seconds)) {
        report(`examples/${workload.folder}: the build failed (GET /v2/logs?version_id=${first.id} says why); skipped.`);
        continue;
      }
      // The same packages again: the environment is reused, so this is the deploy a code change costs.
      const second = await deploy();
      const inputs = await workload.inputs(builtPython(service.dataDir, second.id), upload);
      const firstOutput = async () => {
        const started = wallMs();
        const { id } = (await call<{ id: string }>('POST', '/v2/push', { function: fn, inputs })).body;
        for (;;) {
          const job = (await call<WireJob>('GET', `/v2/jobs/${id}`)).body;
          if ((job.outputs?.length ?? 0) > 0) {
            const elapsed = wallMs() - started;
            const done = (await call<WireJob>('GET', `/v2/jobs/${id}/await`)).body;
            if (done.status !== 'finished') throw new Error(`${fn}: job ${id} ended ${done.status}: ${done.error}`);
            return elapsed;
          }
          if (job.status === 'error' || job.status === 'cancelled') throw new Error(`${fn}: job ${id} ended ${job.status}: ${job.error}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      const coldStart = await firstOutput();
      const warm: number[] = [];
      for (let i = 0; i < WARM_JOBS; i++) warm.push(await firstOutput());
      figures.push({
        example: fn,
        input: workload.input,
        deployToReady: first.seconds,
        redeployToReady: second.seconds,
        coldStart,
        warmP50: percentile(warm, 50),
        warmMax: Math.max(...warm),
      });
    }
  } finally {
    await service.stop();
  }
  return figures;
}
