/**
 * The idioms of public Sieve code (docs/migrating-from-sieve.md, "Idioms of public Sieve code"),
 * each in a function written the way that code writes it, deployed with the real `sluice deploy`
 * and called from a Sieve client program on media the spec makes: metadata computed at the top of
 * the module, Sieve's 2023 arguments and workflows, media Files and the attributes they carry from
 * one function to the next, required environment variables, and Structs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { py } from '../support/python.js';
import { runSdkProgram } from '../support/sdkProgram.js';
import { runCli } from './support/cli.js';
import type { TestService } from './support/testService.js';
import { api, startTestService, writeFunctionDir } from './support/testService.js';

/** Frames out of a video, with the attributes Sieve's splitters give them; metadata computed at import. */
const FRAMES = py`
  import os
  import subprocess
  import tempfile

  import sieve

  file_dir = os.path.dirname(os.path.realpath(__file__))
  readme_content = open(os.path.join(file_dir, "README.md"), "r").read()

  metadata = sieve.Metadata(
      title="Frame tools",
      description="Splits a video into frames",
      code_url="https://example.com/frames",
      tags=["Video"],
      image=sieve.File(path=os.path.join(os.path.dirname(__file__), "icon.png")),
      readme=readme_content,
  )


  @sieve.function(
      name="video-splitter",
      gpu=False,
      python_version="3.11.7",
      system_packages=["ffmpeg"],
      environment_variables=[sieve.Env(name="FPS", default=5)],
      metadata=metadata,
  )
  def split(video: sieve.Video) -> sieve.Image:
      fps = int(os.environ["FPS"])
      out = tempfile.mkdtemp()
      subprocess.run(["ffmpeg", "-loglevel", "error", "-i", video.path, "-vf", f"fps={fps}", f"{out}/%04d.png"], check=True)
      for i, name in enumerate(sorted(os.listdir(out))):
          yield sieve.Image(path=os.path.join(out, name), frame_number=int(video.fps / fps * i), fps=fps, source="split")


  @sieve.function(name="frame-info", gpu=True, machine_type="T4-highmem-8-ssd", iterator_input=True, persist_output=True)
  def frame_info(images: sieve.Image) -> list:
      return [{"frame_number": i.frame_number, "fps": i.fps, "source": getattr(i, "source", None), "png": open(i.path, "rb").read(4) == b"\\x89PNG"}
              for i in images]


  @sieve.workflow(name="frames-pipeline")
  def pipeline(video: sieve.Video) -> list:
      frames = sieve.reference("local/video-splitter")(video)
      return sieve.reference("local/frame-info")(list(frames))
`;

/** Audio split as Sieve's silence splitter does (start_time, end_time), and read back downstream. */
const AUDIO = py`
  import sieve


  @sieve.function(name="audio-halves", gpu=False, python_version="3.11")
  def halves(audio: sieve.Audio) -> sieve.Audio:
      half = audio.duration / 2
      yield sieve.Audio(path=audio.path, start_time=0.0, end_time=half)
      yield sieve.Audio(path=audio.path, start_time=half, end_time=audio.duration)


  @sieve.function(name="audio-span")
  def span(audio: sieve.Audio) -> dict:
      return {"start": audio.start_time, "end": audio.end_time, "rate": audio.sample_rate, "channels": audio.channels}
`;

/** Pixels in and out as numpy arrays, as the 2023 image models write them. */
const PIXELS = py`
  import sieve


  @sieve.function(name="image-invert", python_packages=["numpy", "pillow"])
  def invert(image: sieve.Image) -> sieve.Image:
      pixels = image.array
      return sieve.Image(array=255 - pixels, frame_number=image.frame_number, note=f"{image.width}x{image.height}x{image.channels}")
`;

/** A required environment variable, and Structs as pydantic models and as records. */
const SETTINGS = py`
  import os

  import sieve


  class Box(sieve.Struct):
      width: int
      height: int = 1


  @sieve.function(name="needs-key", environment_variables=[sieve.Env(name="API_KEY", description="a key")])
  def needs_key() -> str:
      return os.environ["API_KEY"][::-1]


  @sieve.function(name="box-area")
  def area(box: Box) -> sieve.Struct:
      record = sieve.Struct(area=box.width * box.height)
      record.unit = "px"
      return record
`;

/** The client program: makes a video and a WAV, and calls the functions as Sieve's docs do. */
const CLIENT = py`
  import json
  import os
  import subprocess
  import sys
  import tempfile
  import wave

  import sieve

  here = tempfile.mkdtemp()
  clip = os.path.join(here, "clip.mp4")
  subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "1", "-pix_fmt", "yuv420p", clip], check=True)
  sound = os.path.join(here, "tone.wav")
  with wave.open(sound, "wb") as out:
      out.setnchannels(1)
      out.setsampwidth(2)
      out.setframerate(8000)
      out.writeframes(b"\\x01\\x00" * 8000)

  report = {}
  frames = list(sieve.function.get("local/video-splitter").run(sieve.Video(clip)))
  report["frames"] = [[type(f).__name__, f.frame_number, f.fps, f.source] for f in frames]
  report["pipeline"] = sieve.function.get("local/frames-pipeline").run(sieve.Video(clip))
  report["spans"] = [sieve.function.get("local/audio-span").run(half) for half in sieve.function.get("local/audio-halves").run(sieve.Audio(sound))]
  inverted = sieve.function.get("local/image-invert").run(frames[1])
  report["inverted"] = [type(inverted).__name__, inverted.frame_number, inverted.note, open(inverted.path, "rb").read(4) == b"\\x89PNG"]
  report["box"] = sieve.function.get("local/box-area").run({"width": "3", "height": 2})
  try:
      sieve.function.get("local/box-area").run({"width": "wide"})
  except sieve.RemoteError as error:
      report["bad_box"] = error.error.splitlines()[0]
  print(json.dumps(report))
`;

describe("public Sieve code's idioms, deployed with sluice deploy and called from a Sieve client program", () => {
  let service: TestService;
  let deployed: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    service = await startTestService({ SLUICE_SANDBOX: 'bwrap' });
    const folder = await writeFunctionDir({
      'frames.py': FRAMES,
      'audio.py': AUDIO,
      'pixels.py': PIXELS,
      'settings.py': SETTINGS,
      'README.md': '# Frame tools\n',
    });
    await writeFile(join(folder, 'icon.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    deployed = await runCli(['deploy', folder], { SLUICE_URL: service.url, SLUICE_API_KEY: service.key }, 600_000);
  }, 660_000);
  afterAll(() => service?.close());

  it('deploys every function, reading the metadata the module computes in the build sandbox', async () => {
    expect(deployed.stderr).toBe('');
    expect(deployed.code, deployed.stdout).toBe(0);
    const fn = (await api(service.url, service.key, 'GET', '/v2/functions/local/video-splitter')).body;
    expect(fn).toMatchObject({ title: 'Frame tools', description: 'Splits a video into frames', readme: '# Frame tools\n', tags: ['Video'] });
    expect(fn.cover_image_url).toBe('data:image/png;base64,iVBORw0KGgo=');
    const version = (await api(service.url, service.key, 'GET', '/v2/functions/local/video-splitter/versions')).body[0];
    expect(version).toMatchObject({ environment_variables: [{ name: 'FPS', description: '', default: '5' }] });
    const legacy = (await api(service.url, service.key, 'GET', '/v2/functions/local/frame-info/versions')).body[0];
    expect(legacy).toMatchObject({ gpu: true, compute_type: 't4' });
    const workflow = (await api(service.url, service.key, 'GET', '/v2/functions/local/frames-pipeline/versions')).body[0];
    expect(workflow.function_dependencies).toEqual(['local/video-splitter', 'local/frame-info']);
  });

  it('runs them as Sieve code expects: media attributes carried from function to function, 2023 workflows and iterator inputs, pydantic Structs', async () => {
    const result = await runSdkProgram(CLIENT, service, [], 300_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.frames).toEqual([
      ['Image', 0, 5, 'split'],
      ['Image', 2, 5, 'split'],
      ['Image', 4, 5, 'split'],
      ['Image', 6, 5, 'split'],
      ['Image', 8, 5, 'split'],
    ]);
    expect(report.pipeline).toEqual([0, 2, 4, 6, 8].map((frame) => ({ frame_number: frame, fps: 5, source: 'split', png: true })));
    expect(report.spans).toEqual([
      { start: 0, end: 0.5, rate: 8000, channels: 1 },
      { start: 0.5, end: 1, rate: 8000, channels: 1 },
    ]);
    expect(report.inverted).toEqual(['Image', 2, '64x48x3', true]);
    expect(report.box).toEqual({ area: 6, unit: 'px' });
    expect(report.bad_box).toMatch(/ValidationError/);
  }, 300_000);

  it('refuses a push that does not set a required environment variable, naming it, and runs one that does', async () => {
    const refused = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/needs-key', inputs: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'env', 'API_KEY'], msg: expect.stringContaining('requires the environment variable API_KEY') }),
    ]);
    const pushed = await api(service.url, service.key, 'POST', '/v2/push', { function: 'local/needs-key', inputs: {}, env: { API_KEY: 'abc' } });
    expect(pushed.status).toBe(200);
    const job = (await api(service.url, service.key, 'GET', `/v2/jobs/${pushed.body.id}/await`)).body;
    expect(job.outputs[0].data).toBe('cba');
  });
});
