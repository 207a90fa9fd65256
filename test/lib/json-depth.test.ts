import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/lib/json-depth.js';

const deeper = (text: string, max: number) => nestsDeeperThan(Buffer.from(text), max);

describe('nestsDeeperThan: bracket depth from the raw bytes', () => {
  it('counts arrays and objects alike, up to and past the limit', () => {
    expect(deeper('[{"a":[1]}]', 3)).toBe(false);
    expect(deeper('[{"a":[[1]]}]', 3)).toBe(true);
    expect(deeper('[][][][]', 1)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and multi-byte characters included', () => {
    expect(deeper('["[[[[", "\\"[[[[", "京都{{{{"]', 1)).toBe(false);
    expect(deeper('["\\\\", [[1]]]', 2)).toBe(true);
  });
});
