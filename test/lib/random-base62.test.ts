import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';

// randomBase62 draws from a 4 kB buffer of CSPRNG bytes, each used once: across many refills no
// value repeats, every length is exact, and the 62 characters come out evenly (no modulo bias,
// no byte used twice).
describe('randomBase62 and newId', () => {
  it('gives exact lengths, base62 only, no repeats across many refills of its buffer', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const s = randomBase62(1 + (i % 43));
      expect(s).toMatch(new RegExp(`^[0-9A-Za-z]{${1 + (i % 43)}}$`));
      if (s.length >= 16) {
        expect(seen.has(s)).toBe(false);
        seen.add(s);
      }
    }
  });

  it('makes ids that sort in the order they were made (byte order), each with 12 random characters', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('dlv'));
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-z]{9}[0-9A-Za-z]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(ids.length);
    // The time part is the clock's milliseconds (ahead of it only by the ids made in the same millisecond).
    const made = parseInt(newId('art').slice(4, 13), 36);
    expect(made).toBeGreaterThanOrEqual(Date.now() - 1_000);
  });

  it('spreads 620,000 characters evenly over the 62 (chi-square far below what a reused or biased byte gives)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) for (const c of randomBase62(62)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = 10_000;
    const chi2 = [...counts.values()].reduce((a, n) => a + (n - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: p = 1e-6 at about 130. Taking every byte modulo 62 (no rejection) gives about 4,000.
    expect(chi2).toBeLessThan(130);
  });
});
