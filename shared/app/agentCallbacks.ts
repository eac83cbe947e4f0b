import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { PUSHED_JOB_WAITS, type JobRecord } from '../domain/job.js';
import { FetchRefused, type FileFetcher } from '../adapters/httpFileFetcher.js';
import type { Artifacts, OutputFileRef } from '../ports/artifacts.js';
import { ownFilePath, parseFileSlot } from '../domain/fileOutputs.js';
import { fetchFileInputs, InputFetchError } from '../runtime/jobInputs.js';
import type { PoolContext } from '../runtime/replicaPool.js';
import type { AwaitMessage, CallMessage, CallResult } from '../runtime/protocol.js';
import type { WorkerServices } from '../services/services.js';

/**
 * What a worker agent hands its replica pools to reach the services, the same in the local mode
 * and in an ECS task: calls from inside a job, file inputs and outputs, idle usage.
 */
export function agentCallbacks(
  services: WorkerServices,
  artifacts: Artifacts,
  publicUrl: () => string,
  fetchFile: FileFetcher,
): Pick<PoolContext, 'handleCall' | 'storeFile' | 'storeCallFile' | 'recordIdle' | 'fetchInputs'> {
  return {
    fetchInputs: (version, job, directory, signal) =>
      fetchFileInputs(
        version,
        job,
        directory,
        {
          ownFile: async (reader, url) => {
            // The key-checked route, or the signed URL a job shows (the service's own, or S3's).
            const own = ownFileOf(url, publicUrl()) ?? (await artifacts.outputFileOfUrl(url));
            return own ? services.calls.outputFileForJob(reader, own.jobId, own.slot) : 'not_own';
          },
          upload: (reader, uploadId) => artifacts.readUpload(reader.organizationId, uploadId),
          fetch: (url, target, fetchSignal) =>
            fetchFile(url, target, fetchSignal).catch((error: unknown) => {
              throw error instanceof FetchRefused ? new InputFetchError(error.message) : error;
            }),
        },
        signal,
      ),
    handleCall: async (job: JobRecord, call: CallMessage | AwaitMessage): Promise<CallResult> => {
      try {
        if (call.type === 'await') {
          // The replica runs the function's code: its message is checked, not trusted.
          if (
            typeof call.job_id !== 'string' ||
            !Number.isSafeInteger(call.offset) ||
            call.offset < 0 ||
            !(PUSHED_JOB_WAITS as readonly unknown[]).includes(call.until)
          ) {
            throw new Error('a malformed await: job_id, a whole offset of 0 or more and until (now, output or end) are required');
          }
          const awaited = await services.calls.awaitPushed(job, call.job_id, call.offset, call.until);
          return {
            type: 'call_result',
            call_id: call.call_id,
            ok: true,
            job_id: awaited.job.id,
            outputs: awaited.outputs,
            status: awaited.job.status,
            error: awaited.job.error,
          };
        }
        const result = await services.calls.pushFromJob(job, call.function, call.inputs, call.wait, call.args ?? []);
        return { type: 'call_result', call_id: call.call_id, ok: true, job_id: result.jobId, outputs: result.outputs, stream: result.stream };
      } catch (error) {
        return { type: 'call_result', call_id: call.call_id, ok: false, error: (error as Error).message };
      }
    },
    storeFile: async (job, slot, path, name) => {
      await artifacts.putOutputFile(job.id, slot, name, path);
      return { url: `${publicUrl()}${ownFilePath(job.id, slot)}`, name: basename(name) || 'file' };
    },
    // An upload of the job's organization, which the called job (of that organization too) fetches as it does a client's.
    storeCallFile: async (job, path, name, size) => {
      const uploadId = randomUUID();
      await artifacts.putUploadFile(job.organizationId, uploadId, path, size);
      return { upload_id: uploadId, name: basename(name) || 'file' };
    },
    recordIdle: (version, seconds) => services.usage.recordIdle(version, seconds),
  };
}

/** The job and slot an output file URL of this service names (`<public URL>/v2/jobs/{id}/files/{slot}`), or null for any other URL. */
function ownFileOf(url: URL, base: string): OutputFileRef | null {
  const prefix = `${base}/v2/jobs/`;
  if (url.search !== '' || !url.href.startsWith(prefix)) return null;
  const match = /^([^/]+)\/files\/([\d.]+)$/.exec(url.href.slice(prefix.length));
  const slot = match ? parseFileSlot(match[2] as string) : null;
  return match && slot !== null ? { jobId: decodeURIComponent(match[1] as string), slot } : null;
}
