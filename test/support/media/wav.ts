/** 16-bit PCM WAV files, written and read without any package: the audio example's input and output. */

/** A mono sine wave as a 16-bit WAV file. */
export function sineWav({ frequency, amplitude, seconds, rate }: { frequency: number; amplitude: number; seconds: number; rate: number }): Buffer {
  const frames = Math.round(seconds * rate);
  const data = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) data.writeInt16LE(Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * frequency * i) / rate)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // bytes per frame
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** The format of a 16-bit PCM WAV file and its first channel's samples, scaled to [-1, 1]. */
export function readWav(bytes: Buffer): { rate: number; channels: number; samples: number[] } {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let format: { rate: number; channels: number; bits: number } | undefined;
  // Chunks follow the 12-byte header, each an id, a size and a body padded to an even length.
  for (let at = 12; at + 8 <= bytes.length; at += 8 + bytes.readUInt32LE(at + 4) + (bytes.readUInt32LE(at + 4) % 2)) {
    const id = bytes.toString('ascii', at, at + 4);
    if (id === 'fmt ') format = { channels: bytes.readUInt16LE(at + 10), rate: bytes.readUInt32LE(at + 12), bits: bytes.readUInt16LE(at + 22) };
    if (id !== 'data') continue;
    if (format?.bits !== 16) throw new Error(`not 16-bit PCM (${format?.bits} bits)`);
    const frames = bytes.readUInt32LE(at + 4) / (2 * format.channels);
    const samples = Array.from({ length: frames }, (_, i) => bytes.readInt16LE(at + 8 + i * 2 * format!.channels) / 32768);
    return { rate: format.rate, channels: format.channels, samples };
  }
  throw new Error('no data chunk');
}

/** RMS level in dB relative to full scale. */
export const rmsDbfs = (samples: number[]) => 20 * Math.log10(Math.sqrt(samples.reduce((sum, s) => sum + s * s, 0) / samples.length));

/** How many times the signal crosses zero upwards: a sine's frequency times its length. */
export const upwardZeroCrossings = (samples: number[]) => samples.filter((s, i) => i > 0 && (samples[i - 1] as number) < 0 && s >= 0).length;
