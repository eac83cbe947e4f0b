import { basename } from 'node:path';
import type { JobRecord } from '../domain/job.js';
import type { Artifacts } from '../ports/artifacts.js';
import type { PoolContext } from '../runtime/replicaPool.js';
import type { CallMessage, CallResult } from '../runtime/protocol.js';
import type { Services } from '../services/services.js';

/**
 * What a worker agent hands its replica pools to reach the services, the same in the local mode
 * and in an ECS task: calls from inside a job, file outputs, idle usage.
 */
export function agentCallbacks(services: Services, artifacts: Artifacts, publicUrl: () => string): Pick<PoolContext, 'handleCall' | 'storeFile' | 'recordIdle'> {
  return {
    handleCall: async (job: JobRecord, call: CallMessage): Promise<CallResult> => {
      try {
        const result = await services.jobs.pushFromJob(job, call.function, call.inputs, call.wait);
        return { type: 'call_result', call_id: call.call_id, ok: true, job_id: result.jobId, outputs: result.outputs };
      } catch (error) {
        return { type: 'call_result', call_id: call.call_id, ok: false, error: (error as Error).message };
      }
    },
    storeFile: async (job, index, path, name) => {
      await artifacts.putOutputFile(job.id, index, name, path);
      return { url: `${publicUrl()}/v2/jobs/${job.id}/files/${index}`, name: basename(name) || 'file' };
    },
    recordIdle: (version, seconds) => services.usage.recordIdle(version, seconds),
  };
}
