import { describe, expect, it } from 'vitest';
import { htmlText, renderBody } from '../../src/lib/markdown.js';

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
