import { describe, expect, it } from 'vitest';
import { Marked } from 'marked';
import { htmlText, plainText, renderBody } from '../../src/lib/markdown.js';

// A body's excerpt, word count and search terms come from the sanitised HTML with its tags cut
// out by a pattern, which holds only while every `<` and `>` outside a tag is escaped. These
// bodies put `<` and `>` where a tag pattern would trip: attribute values, alt text, link titles,
// code, raw HTML the sanitiser drops, comments. The text must be what a full HTML parse gives.
const BODIES = [
  'A link [with a title](https://example.org/a?x>1 "1 > 0 and 2 < 3") ends here.',
  'An image ![alt with > and < inside](https://example.org/i.png "a > b") between words.',
  'Raw <a href="https://example.org/?q=<b>" title="x > y">anchor text</a> and <span data-x="a>b">span text</span>.',
  '<img src="x" alt="a > b <c>"> after an image with a hostile alt.',
  'Code `a > b && c < d` inline and\n\n```\nif (a < b && c > d) {}\n```\n\nafter the block.',
  'A comment <!-- it says > and < --> between words, a <script>var x = "<p>";</script> script.',
  '<div title="<p>not a paragraph</p>">inside the div</div>',
];

describe('the text of a rendered body', () => {
  for (const body of BODIES) {
    it(`is the text a full parse of its HTML gives: ${body.slice(0, 40)}`, () => {
      const rendered = renderBody(body);
      const parsed = htmlText(rendered.html.replace(/<\/(p|h\d|li|td|th|blockquote)>/g, ' ')).replace(/\s+/g, ' ');
      expect(parsed.length).toBeLessThanOrEqual(160); // the excerpt is then the whole text, not a cut of it
      expect(rendered.excerpt).toBe(parsed);
      expect(rendered.excerpt).not.toMatch(/(title|alt|href|src|data-x)=/);
    });
  }
});

// A seeded generator, so a failure names a string that fails again.
function strings(seed: number, alphabet: string[], count: number, length: number): string[] {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) / (1 << 24);
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * length) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
}

describe("a heading's plain text", () => {
  // Words, the punctuation of ordinary headings, autolinks, quotes and every character that
  // starts markup, an escape or an entity: a heading with none of those is taken as its own text
  // without marked, which must give what marked and the sanitiser give.
  const alphabet = ['word', 'Ünïcödé', '日本語', '2026', ' ', '  ', '\u00a0', "'", '"', '>', '.', ',', ':', ';', '?', '!', '/', '@', '#', '$', '%', '(', ')', '{', '}', '|', '^', '=', '+', '-',
    'www.example.com', 'https://example.org/a?b=c', 'me@example.org', 'mailto:', '😀', '*', '_', '~', '`', '\\', '[', ']', '<', '&', '&amp;', '&copy;', '<b>', '\t'];
  const reference = new Marked({ gfm: true, async: false });
  it('is what marked and the sanitiser make of its markdown', () => {
    for (const text of strings(7, alphabet, 3000, 12)) expect([text, plainText(text)]).toEqual([text, htmlText(reference.parseInline(text) as string)]);
  });
});

describe("a body's word count", () => {
  const alphabet = ['word', 'Ünïcödé', '2026', '--', '...', ' ', '\n', '—', '&', '<', '>', '"', '😀', 'a-b', '(x)'];
  it('counts the runs of non-space holding a letter or a digit in its text as sanitize-html leaves it', () => {
    for (const text of strings(11, alphabet, 500, 40)) {
      const rendered = renderBody(`${text}\n\nA second paragraph.`);
      const escaped = rendered.html.replace(/<\/(p|h\d|li|td|th|blockquote)>/g, ' ').replace(/<[^>]*>/g, '');
      expect([text, rendered.words]).toEqual([text, escaped.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length]);
    }
  });
});
