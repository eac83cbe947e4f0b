import { readdirSync } from 'node:fs';

/** The GPU device files of this machine (NVIDIA's, and the DRI render nodes), for a GPU replica's sandbox. */
export function gpuDevices(): string[] {
  let names: string[];
  try {
    names = readdirSync('/dev');
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith('nvidia') || name === 'dri').map((name) => `/dev/${name}`);
}
