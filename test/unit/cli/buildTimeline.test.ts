import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../../cli/buildTimeline.js';
import type { WireVersion } from '../../../shared/domain/wire/version.js';

const version = (build_status: WireVersion['build_status'], times: Partial<WireVersion> = {}) =>
  ({ build_status, queued_at: '2025-01-31T10:00:00.000000', built_at: null, ready_at: null, ...times }) as WireVersion;
const line = (message: string, isoSeconds: string) => ({ message, timestamp: `${BigInt(Date.parse(`2025-01-31T10:00:${isoSeconds}Z`)) * 1_000_000n}` });
const render = (events: ReturnType<typeof buildTimeline>) => events.map((event) => ('state' in event ? event.state : `| ${event.line.message}`));

describe('the states a deploy reports', () => {
  it('reports every state a fast build passed, first read ready, each among the log lines by its time', () => {
    const ready = version('ready', { built_at: '2025-01-31T10:00:02.000000', ready_at: '2025-01-31T10:00:03.000000' });
    const lines = [line('Building version v', '01'), line('Installing the code', '02.5'), line('Ready', '03.1')];
    expect(render(buildTimeline('', ready, lines))).toEqual([
      'queued',
      'building',
      '| Building version v',
      'pushing',
      '| Installing the code',
      'deploying',
      'ready',
      '| Ready',
    ]);
  });

  it('reports only the states passed since the last read', () => {
    expect(render(buildTimeline('building', version('deploying', { built_at: '2025-01-31T10:00:02.000000' }), []))).toEqual(['pushing', 'deploying']);
    expect(render(buildTimeline('ready', version('ready'), [line('late', '09')]))).toEqual(['| late']);
  });

  it('reports a failure after the log lines that say why', () => {
    expect(render(buildTimeline('building', version('error'), [line('Build failed: pip install failed', '05')]))).toEqual([
      '| Build failed: pip install failed',
      'error',
    ]);
  });
});
