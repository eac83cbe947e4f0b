"""audio-loudness: how loud a recording is, and the recording resampled, with numpy and soundfile.

Inputs:
    audio         an audio file libsndfile reads (WAV, FLAC, OGG/Vorbis, MP3, AIFF, ...)
    sample_rate   the rate of the resampled copy, in Hz, 8000 to 192000 (default 16000, what
                  most speech models expect)

Output: one dict
    duration_s    the recording's length in seconds
    sample_rate   its sample rate in Hz
    channels      its number of channels
    rms_dbfs      its RMS level over all channels, in dB relative to full scale (a full-scale
                  sine is -3.01); null for digital silence
    peak_dbfs     its peak sample level in dBFS; null for digital silence
    resampled     a 16-bit WAV ``sluice.File`` at ``sample_rate``, same channels (band-limited
                  resampling through the FFT, so the pitch and level do not change)

    npx sluice deploy examples/audio
"""

import math
import os
import tempfile

import numpy as np
import soundfile

import sluice


@sluice.function(
    name="audio-loudness",
    title="Audio loudness",
    description="Measures a recording's RMS and peak level (dBFS) and resamples it (numpy, soundfile).",
    tags=["example", "audio"],
    python_packages=["numpy", "soundfile"],
    readme=(
        "# audio-loudness\n\n"
        "Returns the RMS and peak level of `audio` in dBFS, its length and format, and a 16-bit WAV "
        "copy resampled to `sample_rate`.\n"
    ),
)
def audio_loudness(audio: sluice.File, sample_rate: int = 16000) -> dict:
    """Level and format of a recording, and a resampled copy.

    :param audio: the recording
    :param sample_rate: the resampled copy's rate in Hz (8000 to 192000)
    :return: duration_s, sample_rate, channels, rms_dbfs, peak_dbfs, resampled (a WAV file)
    """
    if not 8000 <= sample_rate <= 192000:
        raise ValueError(f"sample_rate must be between 8000 and 192000 (got {sample_rate})")
    samples, rate = soundfile.read(audio.path, dtype="float64", always_2d=True)
    if len(samples) == 0:
        raise ValueError("the recording holds no samples")
    path = os.path.join(tempfile.mkdtemp(), f"resampled-{sample_rate}.wav")
    soundfile.write(path, np.clip(_resample(samples, rate, sample_rate), -1.0, 1.0), sample_rate, subtype="PCM_16")
    return {
        "duration_s": len(samples) / rate,
        "sample_rate": rate,
        "channels": samples.shape[1],
        "rms_dbfs": _dbfs(float(np.sqrt(np.mean(np.square(samples))))),
        "peak_dbfs": _dbfs(float(np.max(np.abs(samples)))),
        "resampled": sluice.File(path),
    }


def _dbfs(level: float) -> float | None:
    # JSON has no -infinity: silence has no level.
    return round(20 * math.log10(level), 3) if level > 0 else None


def _resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Band-limited resampling: keep the spectrum below both Nyquist frequencies, change the length."""
    if rate == target:
        return samples
    length = max(1, round(len(samples) * target / rate))
    spectrum = np.fft.rfft(samples, axis=0)
    kept = np.zeros((length // 2 + 1, samples.shape[1]), dtype=spectrum.dtype)
    bins = min(len(kept), len(spectrum))
    kept[:bins] = spectrum[:bins]
    return np.fft.irfft(kept, n=length, axis=0) * (length / len(samples))


if __name__ == "__main__":
    # Runs without the service: python examples/audio/main.py recording.wav
    import sys

    print(audio_loudness(sluice.File(sys.argv[1])))
