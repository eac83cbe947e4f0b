import { describe, expect, it } from 'vitest';
import { pushedEnvironment, pushedTimeout, uploadsNamed } from '../../shared/domain/replay.js';
import { aJob, aVersion } from '../support/fixtures.js';

describe('what a replay takes from its original push', () => {
  const version = aVersion({
    environmentVariables: [
      { name: 'GREETING', default: 'Hello', description: '' },
      { name: 'TOKEN', default: null, description: '' },
    ],
    timeoutSeconds: 600,
  });

  it("keeps the environment values the push set, not the version's defaults, so another version brings its own", () => {
    const job = aJob({ env: { GREETING: 'Hello', TOKEN: 'secret', EXTRA: 'x' } });
    expect(pushedEnvironment(job, version)).toEqual({ TOKEN: 'secret', EXTRA: 'x' });
    expect(pushedEnvironment(aJob({ env: { GREETING: 'Hi' } }), version)).toEqual({ GREETING: 'Hi' });
  });

  it("keeps the push's timeout only where it was shorter than the version's own", () => {
    expect(pushedTimeout(aJob({ timeLimitSeconds: 60 }), version)).toBe(60);
    expect(pushedTimeout(aJob({ timeLimitSeconds: 600 }), version)).toBeUndefined();
    expect(pushedTimeout(aJob({ timeLimitSeconds: null }), version)).toBeUndefined();
  });

  it('finds the uploads File inputs name, whole or nested, and nothing else that merely has the key', () => {
    const files = aVersion({
      inputs: [
        { name: 'document', type: 'sieve.File', is_optional: false, default: null, description: '' },
        { name: 'bundle', type: 'dict', is_optional: false, default: null, description: '' },
      ] as never,
    });
    const inputs = {
      document: { upload_id: 'u-1', name: 'a.txt' },
      bundle: {
        frames: [
          { _type: 'sieve.File', upload_id: 'u-2' },
          { _type: 'sieve.File', url: 'https://example.com/x' },
        ],
        upload_id: 'not-a-file',
      },
    };
    expect(uploadsNamed(inputs, files)).toEqual([
      { input: 'document', uploadId: 'u-1' },
      { input: 'bundle', uploadId: 'u-2' },
    ]);
  });
});
