import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { openDatabase } from '../../shared/adapters/local/sqlite/database.js';
import { InternalServerError, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { RateLimitedError, notFound } from '../../shared/domain/errors.js';
import { errorResponder } from '../../shared/http/middlewares/errorResponder.js';

/** What a route's error is answered with, and what the operator's log gets. */
async function answerTo(error: unknown) {
  const logged: string[] = [];
  const request = { error, event: { rawPath: '/v2/push' }, response: undefined as APIGatewayProxyStructuredResultV2 | undefined };
  await errorResponder({ error: (_details, message) => logged.push(message) }).onError?.(request as never);
  const response = request.response as APIGatewayProxyStructuredResultV2;
  return { status: response.statusCode, body: JSON.parse(response.body as string), headers: response.headers, logged };
}

/** The error better-sqlite3 raises when a write finds no room: a database capped at its size, as a full disk does. */
function sqliteFullError(): unknown {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  try {
    db.prepare('INSERT INTO notes VALUES (?)').run('x'.repeat(100_000));
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('the capped database took the write');
}

/** Node's own shape of a failed file write (ENOSPC, EDQUOT): nothing here can fill a disk without root. */
const fileWriteError = (code: string) => Object.assign(new Error(`${code}: no space left on device, write`), { code, errno: -28, syscall: 'write' });

const STORAGE_FULL = { status: 507, body: { detail: expect.stringMatching(/^The service's disk is full: /) } };

describe('answers to a full disk', () => {
  it('answers a write SQLite refused for lack of room (SQLITE_FULL) with 507 and a detail saying the disk is full, and logs it', async () => {
    const error = sqliteFullError();
    expect(error).toMatchObject({ code: 'SQLITE_FULL' });
    const answer = await answerTo(error);
    expect(answer).toMatchObject(STORAGE_FULL);
    expect(answer.logged).toEqual(['request refused: the disk is full']);
  });

  it('answers a file write refused for lack of room or quota (ENOSPC, EDQUOT) with 507, also when it is the cause of another error', async () => {
    expect(await answerTo(fileWriteError('ENOSPC'))).toMatchObject(STORAGE_FULL);
    expect(await answerTo(fileWriteError('EDQUOT'))).toMatchObject(STORAGE_FULL);
    expect(await answerTo(new Error('the bundle could not be kept', { cause: fileWriteError('ENOSPC') }))).toMatchObject(STORAGE_FULL);
  });

  it('answers SQLite failing to grow its WAL index for lack of room (SQLITE_IOERR_SHMSIZE) with 507', async () => {
    // What the 2-hour local soak's full disk gave 35 requests, answered 500 then.
    const error = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHMSIZE' });
    expect(await answerTo(error)).toMatchObject(STORAGE_FULL);
  });

  it('keeps a bare 500 for any other unexpected error, and their own status for the errors services raise', async () => {
    expect(await answerTo(Object.assign(new Error('boom'), { code: 'EACCES' }))).toMatchObject({
      status: 500,
      body: { detail: 'Internal server error.' },
      logged: ['request failed'],
    });
    expect(await answerTo(notFound('Job not found.'))).toMatchObject({ status: 404, body: { detail: 'Job not found.' }, logged: [] });
    expect(await answerTo(new RateLimitedError('Slow down.', 3))).toMatchObject({ status: 429, headers: { 'retry-after': '3' } });
  });

  it('answers an AWS service failing or throttling past the SDK’s retries with 503 and a Retry-After, not a 500', async () => {
    const failing = new InternalServerError({ $metadata: { httpStatusCode: 500 }, message: 'Internal server error' });
    const throttled = new ProvisionedThroughputExceededException({
      $metadata: { httpStatusCode: 400 },
      message: 'Rate of requests exceeds the allowed throughput.',
    });
    for (const error of [failing, throttled])
      expect(await answerTo(error)).toMatchObject({
        status: 503,
        body: { detail: expect.stringMatching(/^A service Sluice depends on is failing or throttling requests/) },
        headers: { 'retry-after': '2' },
        logged: ['request failed: a service it depends on is unavailable'],
      });
  });
});
