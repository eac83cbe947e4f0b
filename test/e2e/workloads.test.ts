import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadBundle } from '../../cli/uploadBundle.js';
import { builtPython, EXAMPLES_DIR, heldOutDigits, makeClip, probeImage } from '../support/builtEnvironment.js';
import { twoColourPng } from '../support/media/png.js';
import { readWav, rmsDbfs, sineWav, upwardZeroCrossings } from '../support/media/wav.js';
import type { TestService } from './support/testService.js';
import { api, deployDirectory, startTestService, until } from './support/testService.js';

// The examples that install packages, each deployed once by the real build (pip through the
// machine's own configuration) and run on real inputs. Slow: about 3 minutes on the 2-core VM,
// mostly pip (the four builds overlap).
const FOLDERS = ['video', 'audio', 'image', 'digits'] as const;
type Folder = (typeof FOLDERS)[number];

/** A version's build lines, to show why a build failed. */
async function buildLog(service: TestService, versionId: string): Promise<string> {
  const logs = (await api(service.url, service.key, 'GET', `/v2/logs?version_id=${versionId}`)).body;
  return logs.data.flatMap((group: any) => group.logs.map((log: any) => log.message)).join('\n');
}

type Rgb = [number, number, number];
/** A colour's name, for the solid colours the inputs use; JPEG and YUV shift them a little. */
function colourName([r, g, b]: Rgb): string {
  if (Math.min(r, g, b) > 200) return 'white';
  const named = (['red', 'green', 'blue'] as const).filter((_, i) => ([r, g, b][i] as number) > 150);
  return named.length === 1 && Math.min(r, g, b) < 90 ? (named[0] as string) : `rgb(${r}, ${g}, ${b})`;
}

describe('real workloads: the examples that install packages, built with pip and run on real media', () => {
  let service: TestService;
  const versions = {} as Record<Folder, { fn: string; id: string; python: string }>;

  const fileInput = async (bytes: Buffer, name: string) => ({ upload_id: await uploadBundle({ url: service.url, apiKey: service.key }, bytes), name });
  const run = async (fn: string, inputs: Record<string, unknown>) => {
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: fn, inputs });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    return (await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`)).body;
  };
  const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

  beforeAll(async () => {
    service = await startTestService();
    // Deployed together: pip mostly waits on the index, so the four builds overlap well.
    await Promise.all(
      FOLDERS.map(async (folder) => {
        const { body } = await deployDirectory(service, join(EXAMPLES_DIR, folder));
        const fn = `local/${body.function.name}`;
        const path = `/v2/functions/${fn}/versions/${body.version.id}`;
        await until(async () => ['ready', 'error'].includes((await api(service.url, service.key, 'GET', path)).body.build_status), 480_000, 500);
        const status = (await api(service.url, service.key, 'GET', path)).body.build_status;
        if (status !== 'ready') throw new Error(`examples/${folder} did not build:\n${await buildLog(service, body.version.id)}`);
        versions[folder] = { fn, id: body.version.id, python: builtPython(service.dataDir, body.version.id) };
      }),
    );
  }, 500_000);
  afterAll(() => service?.close());

  it('video-thumbnails streams one JPEG per part of a clip, each the frame shown in that part, scaled to the width asked', async () => {
    const { fn, python } = versions.video;
    const clip = await makeClip(python); // a second each of red, green, blue, white
    const job = await run(fn, { video: await fileInput(clip, 'clip.mp4'), count: 4, width: 80 });
    expect(job.status, job.error).toBe('finished');
    expect(job.outputs.map((output: any) => [output.type, output.data.name])).toEqual([
      ['sieve.File', 'thumb-1-0.50s.jpg'],
      ['sieve.File', 'thumb-2-1.50s.jpg'],
      ['sieve.File', 'thumb-3-2.50s.jpg'],
      ['sieve.File', 'thumb-4-3.50s.jpg'],
    ]);
    const thumbnails = await Promise.all(job.outputs.map(async (output: any) => probeImage(python, await download(output.data.url))));
    expect(thumbnails.map(({ format, width, height }) => [format, width, height])).toEqual(Array(4).fill(['JPEG', 80, 60]));
    expect(thumbnails.map(({ means }) => colourName(means[0] as Rgb))).toEqual(['red', 'green', 'blue', 'white']);
  });

  it('audio-loudness measures a sine’s RMS and peak level, and resamples it keeping its pitch and level', async () => {
    // A 440 Hz sine at half of full scale: RMS 20·log10(0.5/√2) = -9.03 dBFS, peak -6.02 dBFS.
    const wav = sineWav({ frequency: 440, amplitude: 0.5, seconds: 1, rate: 44_100 });
    const job = await run(versions.audio.fn, { audio: await fileInput(wav, 'sine.wav'), sample_rate: 16_000 });
    expect(job.status, job.error).toBe('finished');
    const result = job.outputs[0].data;
    expect(result).toMatchObject({ duration_s: 1, sample_rate: 44_100, channels: 1, resampled: { _type: 'sieve.File', name: 'resampled-16000.wav' } });
    expect(result.rms_dbfs).toBeCloseTo(-9.03, 1);
    expect(result.peak_dbfs).toBeCloseTo(-6.02, 1);

    const resampled = readWav(await download(result.resampled.url));
    expect([resampled.rate, resampled.channels, resampled.samples.length]).toEqual([16_000, 1, 16_000]);
    expect(rmsDbfs(resampled.samples)).toBeCloseTo(-9.03, 1);
    expect(Math.abs(upwardZeroCrossings(resampled.samples) - 440)).toBeLessThanOrEqual(1);
  });

  it('image-thumbnail shrinks an image to fit the size asked, keeping its aspect ratio and colours, in greyscale when asked', async () => {
    const { fn, python } = versions.image;
    const image = await fileInput(twoColourPng(400, 300, [220, 30, 30], [30, 30, 220]), 'halves.png');
    const job = await run(fn, { image, size: 100 });
    expect(job.status, job.error).toBe('finished');
    expect(job.outputs[0]).toMatchObject({ type: 'sieve.File', data: { name: 'thumbnail.jpg' } });
    const thumbnail = await probeImage(python, await download(job.outputs[0].data.url), [
      [0, 0, 0.4, 1],
      [0.6, 0, 1, 1],
    ]);
    expect([thumbnail.format, thumbnail.width, thumbnail.height, thumbnail.mode]).toEqual(['JPEG', 100, 75, 'RGB']);
    expect(thumbnail.means.map((mean) => colourName(mean))).toEqual(['red', 'blue']);

    const grey = await run(fn, { image, size: 64, greyscale: true });
    expect(grey.status, grey.error).toBe('finished');
    const greyThumbnail = await probeImage(python, await download(grey.outputs[0].data.url));
    expect([greyThumbnail.width, greyThumbnail.height, greyThumbnail.mode]).toEqual([64, 48, 'L']);
  });

  it('digits trains its model once in __setup__, then recognises held-out digits job after job', async () => {
    const { fn, id, python } = versions.digits;
    const samples = await heldOutDigits(python, 10);
    const jobs = [];
    for (const sample of samples) jobs.push(await run(fn, { pixels: sample.pixels }));
    expect(jobs.map((job) => [job.status, job.error])).toEqual(Array(10).fill(['finished', '']));
    expect(jobs.map((job) => job.outputs[0].data.digit)).toEqual(samples.map((sample) => sample.digit));
    for (const job of jobs) expect(job.outputs[0].data.confidence).toBeGreaterThan(0.5);
    // One replica served all ten: __setup__'s line is in the version's logs once.
    expect((await buildLog(service, id)).match(/digits: trained on 1500 images, [\d.]+% right on the 297 held out/g)).toHaveLength(1);

    const wrong = await run(fn, { pixels: [1, 2, 3] });
    expect([wrong.status, wrong.error]).toEqual(['error', expect.stringContaining('pixels must be 64 numbers from 0 to 16')]);
  });
});
