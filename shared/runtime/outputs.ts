import { FILE_TYPE } from '../domain/functionMetadata.js';
import type { JobOutput, JobRecord } from '../domain/job.js';
import type { VersionRecord } from '../domain/version.js';
import type { OutputMessage } from './protocol.js';

/** The interface's type name for a value the function did not declare precisely. */
function typeOfValue(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (Array.isArray(value)) return 'list';
  if (value !== null && typeof value === 'object') return 'dict';
  return 'any';
}

/** One output message as the job's InputOutput: declared type and name where the version has them. */
export async function outputFromMessage(
  version: VersionRecord,
  job: JobRecord,
  message: OutputMessage,
  storeFile: (job: JobRecord, index: number, path: string, name: string) => Promise<unknown>,
): Promise<Omit<JobOutput, 'jobId' | 'runId'>> {
  const declared = version.outputs[0];
  if (message.file !== undefined) {
    const data = await storeFile(job, message.index, message.file, message.name ?? 'file');
    return { index: message.index, type: FILE_TYPE, name: declared?.name ?? '', data };
  }
  const value = message.value ?? null;
  const type = declared && declared.type !== 'any' ? declared.type : typeOfValue(value);
  return { index: message.index, type, name: declared?.name ?? '', data: value };
}
