import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/domain/log.js';
import { NO_WORKERS } from '../../shared/domain/wire/common.js';
import { functionWireSchema, serializeFunction } from '../../shared/domain/wire/function.js';
import { logPageWireSchema, serializeLogPage } from '../../shared/domain/wire/logPage.js';
import { serializeVersion, versionWireSchema } from '../../shared/domain/wire/version.js';
import { stringifyJson } from '../../shared/http/json.js';
import { aBareFunction, aVersion } from '../support/fixtures.js';

const version = aVersion({
  computeType: 'l4',
  split: 4,
  createdAt: 1_734_226_919_195_000,
  queuedAt: 1_734_226_919_195_000,
  inputs: [{ name: 'text', type: 'str', description: '', is_optional: true, default: 'hi' }],
});
const fn = aBareFunction();

describe('the wire format', () => {
  it('prints a Version with every required field, nulls as null and timestamps with microseconds', () => {
    const wire = serializeVersion(version, { currentWorkers: NO_WORKERS });
    expect(versionWireSchema.parse(wire)).toEqual(wire);
    expect(wire).toMatchObject({ queued_at: '2024-12-15T01:41:59.195000', built_at: null, gpu: true, split: 4, cuda_version: null });
    expect(wire.inputs[0]).toEqual({ type: 'str', name: 'text', data: 'hi', description: '', schema: {}, run_id: '', is_optional: true });
    expect('python_version' in wire).toBe(false);
  });

  it('prints python_version only where the single-function detail asks for it', () => {
    expect(serializeVersion(version, { currentWorkers: NO_WORKERS, includePythonVersion: true }).python_version).toBe('3.11');
  });

  it('prints a Function with its latest version, keeping null fields present', () => {
    const wire = serializeFunction(fn, serializeVersion(version, { currentWorkers: NO_WORKERS }));
    expect(functionWireSchema.parse(wire)).toEqual(wire);
    expect(JSON.parse(JSON.stringify(wire))).toHaveProperty('title', null);
  });

  it('groups log lines that share labels and pages from one nanosecond past the last line', () => {
    const line = (timeNs: bigint, stage: LogEntry['stage']): LogEntry => ({
      stream: 'job:j',
      organizationId: 'o',
      functionId: 'f',
      jobId: 'j',
      runId: 'r',
      stage,
      timeNs,
      message: `at ${timeNs}`,
    });
    const page = serializeLogPage(
      [line(1_732_000_000_000_000_001n, 'setup'), line(1_732_000_000_000_000_002n, 'run'), line(1_732_000_000_000_000_003n, 'run')],
      0n,
    );
    expect(logPageWireSchema.parse(page)).toEqual(page);
    expect(page.data.map((group) => group.logs.length)).toEqual([1, 2]);
    expect(page.last_time_returned).toBe('1732000000000000003');
    expect(stringifyJson(page)).toContain('"next_start_time":1732000000000000004');
  });

  it('answers an empty log page that starts where it was asked to', () => {
    expect(serializeLogPage([], 42n)).toEqual({ data: [], next_start_time: 42n, last_time_returned: '' });
  });
});
