import { describe, expect, it } from 'vitest';
import { archivePost } from '../../bench/seed.js';
import { documentTerms } from '../../src/lib/search-text.js';

describe('documentTerms', () => {
  it('makes the same terms of ASCII text by its short path as by the general one', () => {
    const ascii = [
      'Hello, World!', 'snake_case and kebab-case', 'C++ 3.14 x86_64 ID: A1b2', 'tabs\tand\nlines\r\n', '&amp; <b>bold</b> "quoted" \'single\'',
      '\x00\x1f control \x7f', '', '   ', '--', 'MiXeD CaSe 123abc', ...Array.from({ length: 50 }, (_, i) => archivePost(i)),
    ];
    for (const text of ascii) {
      // One accented letter sends the text down the general path; it adds the term `e` at the end.
      const general = documentTerms(`${text} \u00e9`);
      expect(general, JSON.stringify(text)).toBe([documentTerms(text), 'e'].filter(Boolean).join(' '));
    }
    expect(documentTerms('snake_case C++ 3.14')).toBe('snake case c 3 14');
  });
});
