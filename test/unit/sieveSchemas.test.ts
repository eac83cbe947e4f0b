import { describe, expect, it } from 'vitest';
import { componentProblems, responseProblems, SIEVE_OPERATIONS } from '../support/sieveSchemas.js';

/** The validator the API walk relies on: it must tell a conforming answer from one that is not. */
describe('validating answers against Sieve’s OpenAPI document', () => {
  it('reads the document’s 23 operations', () => {
    expect(SIEVE_OPERATIONS).toHaveLength(23);
    expect(new Set(SIEVE_OPERATIONS.map((operation) => operation.operationId)).size).toBe(23);
  });

  it('accepts an answer in the document’s shape, timestamps without a zone as its examples print them', () => {
    expect(responseProblems('cancel_job', 200, { message: 'Job cancelled.' })).toEqual([]);
    const log = { message: 'hi', timestamp: '1' };
    expect(responseProblems('get_logs', 200, { data: [{ logs: [log], labels: { stage: 'run' } }], next_start_time: 2, last_time_returned: '1' })).toEqual([]);
    expect(componentProblems('Restart', { timestamp: '2024-12-15T01:41:59.195000', reason: 'died', type: 'OOM', run_id: null })).toEqual([]);
  });

  it('refuses answers that differ: a missing field, a wrong type, children that are not arrays, a wrong error body', () => {
    expect(responseProblems('cancel_job', 200, { status: 'cancelled' })).not.toEqual([]);
    expect(responseProblems('list_functions', 200, { data: [], next_offset: -1 })).not.toEqual([]);
    expect(componentProblems('Job', { ...aJob(), children: { 'job-2': { status: 'queued' } } })).not.toEqual([]);
    expect(componentProblems('Job', { ...aJob(), children: { 'owner/name': [{ id: 'job-2' }] } })).toEqual([]);
    expect(componentProblems('Restart', { timestamp: 'yesterday', reason: 'died', type: 'OOM', run_id: null })).not.toEqual([]);
    expect(componentProblems('WebhookResult_NewOutputResponse_', { type: 'job.new_output', body: { job_id: 'j', output: { data: 1 } } })).not.toEqual([]);
    expect(responseProblems('get_job', 404, { detail: 'Job not found.' })).toEqual([]);
    expect(responseProblems('get_job', 404, { detail: 'No such job' })).not.toEqual([]);
  });
});

function aJob() {
  return {
    id: 'job-1',
    function_id: 'f',
    organization_id: 'o',
    function: { name: 'n', owner_name: 'o' },
    status: 'finished',
    created_at: '2024-12-15T01:41:59.195000',
    started_at: null,
    completed_at: null,
    error: '',
    visibility: 'private',
    run_id: null,
  };
}
