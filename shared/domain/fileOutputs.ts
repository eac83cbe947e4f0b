import { isFileType } from './functionMetadata.js';
import type { JobOutput } from './job.js';

/** Signs the job's `index`-th output file, saved under `name`: a URL that works without a key until it expires. */
export type SignFileUrl = (index: number, name: string) => Promise<string>;

/** The path a File output's stored URL ends with: the service's own, keyed route for that file. */
export const ownFilePath = (jobId: string, index: number) => `/v2/jobs/${encodeURIComponent(jobId)}/files/${index}`;

/**
 * The outputs as a reader gets them: each File output's `url` a signed, expiring URL made now
 * (signatures expire, so they are never stored). The stored URL stays the key-checked route;
 * only a File that names this very output's file is signed, so data a function chose can
 * never have another job's file signed.
 */
export async function withSignedFileUrls<Output extends Pick<JobOutput, 'index' | 'type' | 'data'>>(jobId: string, outputs: Output[], sign: SignFileUrl): Promise<Output[]> {
  return Promise.all(
    outputs.map(async (output) => {
      const data = output.data as { url?: unknown; name?: unknown } | null;
      if (!isFileType(output.type) || data === null || typeof data !== 'object' || typeof data.url !== 'string') return output;
      if (!data.url.endsWith(ownFilePath(jobId, output.index))) return output;
      const name = typeof data.name === 'string' ? data.name : '';
      return { ...output, data: { ...data, url: await sign(output.index, name) } };
    }),
  );
}
