import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

/**
 * Python in a version's built environment, outside the sandbox: the workload tests make their
 * inputs and decode the outputs with the packages the real build installed (PyAV, Pillow,
 * scikit-learn), rather than with copies of their own.
 */
export const builtPython = (dataDir: string, versionId: string) => join(dataDir, 'versions', versionId, 'venv', 'bin', 'python');

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

async function runPython(python: string, args: string[]): Promise<string> {
  return (await promisify(execFile)(python, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

/** A 4-second MP4 from examples/video/make_clip.py: red, green, blue, then white, a second each. */
export async function makeClip(python: string): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'sluice-clip-'));
  try {
    await runPython(python, [join(EXAMPLES_DIR, 'video', 'make_clip.py'), join(folder, 'clip.mp4')]);
    return await readFile(join(folder, 'clip.mp4'));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export interface ImageProbe {
  format: string;
  width: number;
  height: number;
  mode: string;
  /** The mean RGB of each box asked for. */
  means: [number, number, number][];
}

/** Decodes an image with Pillow: its format, size, mode, and the mean colour of each box (fractions of width and height). */
export async function probeImage(python: string, bytes: Buffer, boxes: [number, number, number, number][] = [[0, 0, 1, 1]]): Promise<ImageProbe> {
  const folder = await mkdtemp(join(tmpdir(), 'sluice-image-'));
  try {
    await writeFile(join(folder, 'image'), bytes);
    const code = `import json, sys
from PIL import Image, ImageStat
image = Image.open(sys.argv[1]); image.load()
rgb = image.convert("RGB")
box = lambda b: (round(b[0] * rgb.width), round(b[1] * rgb.height), round(b[2] * rgb.width), round(b[3] * rgb.height))
means = [[round(v) for v in ImageStat.Stat(rgb.crop(box(b))).mean] for b in json.loads(sys.argv[2])]
print(json.dumps({"format": image.format, "width": image.width, "height": image.height, "mode": image.mode, "means": means}))`;
    return JSON.parse(await runPython(python, ['-c', code, join(folder, 'image'), JSON.stringify(boxes)])) as ImageProbe;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The last `count` of scikit-learn's bundled digits (the examples/digits model never trains on them), with their labels. */
export async function heldOutDigits(python: string, count: number): Promise<{ pixels: number[]; digit: number }[]> {
  const code = `import json, sys
from sklearn.datasets import load_digits
d = load_digits()
n = int(sys.argv[1])
print(json.dumps([{"pixels": d.data[i].tolist(), "digit": int(d.target[i])} for i in range(len(d.data) - n, len(d.data))]))`;
  return JSON.parse(await runPython(python, ['-c', code, String(count)])) as { pixels: number[]; digit: number }[];
}
