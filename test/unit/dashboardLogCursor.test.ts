import { describe, expect, it } from 'vitest';
import { nextLogStart } from '../../web/src/lib/logCursor.js';

describe("the dashboard's log polling (without the streaming route)", () => {
  it('asks for the lines after the last one returned, exactly, though nanosecond times pass 2^53', () => {
    // What the service answers: next_start_time a JSON number, which JSON.parse rounds to a float.
    const page = JSON.parse('{"data":[],"next_start_time":1764253200123456790,"last_time_returned":"1764253200123456789"}');
    expect(String(page.next_start_time)).not.toBe('1764253200123456790');
    expect(nextLogStart(page, '0')).toBe('1764253200123456790');
  });

  it('keeps its place when a page returned no line', () => {
    expect(nextLogStart({ last_time_returned: '' }, '1764253200123456790')).toBe('1764253200123456790');
  });
});
