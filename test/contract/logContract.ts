import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../shared/domain/log.js';
import type { LogQuery } from '../../shared/ports/store.js';
import { aLogEntry } from '../support/fixtures.js';
import type { CurrentStore } from './storeContract.js';

const T = 1_732_000_000_000_000_000n;
const everything = { organizationId: 'org-1', startNs: 0n, endNs: 2n ** 63n - 1n, limit: 1000 } satisfies LogQuery;
const messages = (entries: LogEntry[]) => entries.map((entry) => entry.message);

export function describeLogContract(store: CurrentStore): void {
  describe('logs', () => {
    it("query returns a stream's lines oldest first, every field included", async () => {
      const lines = [
        aLogEntry({ timeNs: T + 2n, message: 'two' }),
        aLogEntry({ timeNs: T, message: 'zero', stage: 'setup' }),
        aLogEntry({ timeNs: T + 1n, message: 'one' }),
      ];
      await store().logs.append(lines);
      expect(await store().logs.query({ ...everything, stream: 'job:job-1' })).toEqual([lines[1], lines[2], lines[0]]);
    });

    it('query keeps lines appended in separate calls in time order', async () => {
      await store().logs.append([aLogEntry({ timeNs: T + 10n, message: 'later' })]);
      await store().logs.append([aLogEntry({ timeNs: T + 5n, message: 'earlier' })]);
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1' }))).toEqual(['earlier', 'later']);
    });

    it('query includes lines at exactly startNs and endNs and none outside', async () => {
      await store().logs.append([T - 1n, T, T + 1n, T + 2n, T + 3n].map((timeNs) => aLogEntry({ timeNs, message: String(timeNs - T) })));
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1', startNs: T, endNs: T + 2n }))).toEqual(['0', '1', '2']);
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1', startNs: T + 1n, endNs: T + 1n }))).toEqual(['1']);
      expect(await store().logs.query({ ...everything, stream: 'job:job-1', startNs: T + 4n, endNs: T + 9n })).toEqual([]);
    });

    it('query returns at most limit lines, the oldest ones', async () => {
      await store().logs.append([0n, 1n, 2n, 3n].map((offset) => aLogEntry({ timeNs: T + offset, message: String(offset) })));
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1', limit: 2 }))).toEqual(['0', '1']);
      expect(messages(await store().logs.query({ ...everything, limit: 3 }))).toEqual(['0', '1', '2']);
    });

    it("query with a stream returns only that stream's lines", async () => {
      await store().logs.append([
        aLogEntry({ stream: 'job:a', timeNs: T, message: 'a' }),
        aLogEntry({ stream: 'job:b', timeNs: T + 1n, message: 'b' }),
        aLogEntry({ stream: 'version:v', timeNs: T + 2n, message: 'v', stage: 'build' }),
      ]);
      expect(messages(await store().logs.query({ ...everything, stream: 'job:b' }))).toEqual(['b']);
      expect(messages(await store().logs.query({ ...everything, stream: 'version:v' }))).toEqual(['v']);
      expect(await store().logs.query({ ...everything, stream: 'job:none' })).toEqual([]);
    });

    it("query with a stream never returns another organization's lines", async () => {
      await store().logs.append([
        aLogEntry({ organizationId: 'org-1', timeNs: T, message: 'ours' }),
        aLogEntry({ organizationId: 'org-2', timeNs: T + 1n, message: 'theirs' }),
      ]);
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1', organizationId: 'org-1' }))).toEqual(['ours']);
      expect(messages(await store().logs.query({ ...everything, stream: 'job:job-1', organizationId: 'org-3' }))).toEqual([]);
    });

    it("query without a stream returns all the organization's lines across streams, oldest first", async () => {
      await store().logs.append([
        aLogEntry({ stream: 'job:a', timeNs: T + 3n, message: 'a2' }),
        aLogEntry({ stream: 'job:b', timeNs: T + 2n, message: 'b1' }),
        aLogEntry({ stream: 'job:a', timeNs: T + 1n, message: 'a1' }),
        aLogEntry({ stream: 'job:c', organizationId: 'org-2', timeNs: T, message: 'other organization' }),
      ]);
      expect(messages(await store().logs.query({ ...everything, organizationId: 'org-1' }))).toEqual(['a1', 'b1', 'a2']);
      expect(messages(await store().logs.query({ ...everything, organizationId: 'org-1', startNs: T + 2n, endNs: T + 2n }))).toEqual(['b1']);
    });

    it('nanosecond times above 2^53 round-trip exactly as bigint', async () => {
      const timeNs = 1_732_000_000_123_456_789n;
      await store().logs.append([aLogEntry({ timeNs }), aLogEntry({ timeNs: timeNs + 1n })]);
      const [first, second] = await store().logs.query({ ...everything, stream: 'job:job-1', startNs: timeNs, endNs: timeNs + 1n });
      expect(first?.timeNs).toBe(timeNs);
      expect(second?.timeNs).toBe(timeNs + 1n);
      expect(typeof first?.timeNs).toBe('bigint');
    });

    it('append with no lines stores nothing', async () => {
      await store().logs.append([]);
      expect(await store().logs.query(everything)).toEqual([]);
    });

    it('append stores every line of a large batch', async () => {
      const lines = Array.from({ length: 130 }, (_, index) => aLogEntry({ timeNs: T + BigInt(index), message: `line ${index}` }));
      await store().logs.append(lines);
      expect(await store().logs.query({ ...everything, stream: 'job:job-1' })).toEqual(lines);
    });

    it('query returns long lines whole, however many of them there are', async () => {
      const lines = Array.from({ length: 5 }, (_, index) => aLogEntry({ timeNs: T + BigInt(index), message: `${index}`.repeat(90_000) }));
      await store().logs.append(lines);
      expect(await store().logs.query({ ...everything, stream: 'job:job-1' })).toEqual(lines);
      expect(await store().logs.query(everything)).toEqual(lines);
    });

    it('query takes range bounds beyond 64 bits as "no bound"', async () => {
      await store().logs.append([aLogEntry({ timeNs: T, message: 'hello' })]);
      expect(messages(await store().logs.query({ ...everything, endNs: 10n ** 19n }))).toEqual(['hello']);
    });
  });
}
