import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTypesSource, TYPES_FILE } from '../../clients/typescript/scripts/generateTypes.js';

describe('the TypeScript client’s types', () => {
  it('are those the service’s API document describes now (else: npm run generate in clients/typescript)', () => {
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(apiTypesSource());
  });
});
