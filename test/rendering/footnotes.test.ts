import { describe, expect, it } from 'vitest';
import { assertRenderable, BODY_LIMITS } from '../../src/articles/body-limits.js';
import { headings, htmlSearchTerms, renderHtml, renderMarkdown, wordCount } from '../../src/lib/markdown.js';

// Footnotes as GitHub, kramdown, Hugo and Hexo render them, for every body: references a
// superscript link to a numbered list at the end, each note linking back. Ids start with `fn-`,
// which no heading takes.
const BODY = 'Said once[^1], noted[^note] and again[^1].\n\n## fn 1\n\nText.\n\n[^1]: The first *note*.\n[^note]: Another,\n    on two lines.\n';

describe('footnotes', () => {
  it('a reference is a superscript link to its note at the end; each note links back to each reference', () => {
    const html = renderHtml(BODY);
    expect(html).toContain('<p>Said once<sup><a href="#fn-1" id="fn-ref-1">1</a></sup>, noted<sup><a href="#fn-note" id="fn-ref-note">2</a></sup> and again<sup><a href="#fn-1" id="fn-ref-1-2">1</a></sup>.</p>');
    expect(html).toMatch(/<hr \/>\s*<section class="footnotes">\s*<ol>\s*<li id="fn-1">\s*<p>The first <em>note<\/em>\. <a href="#fn-ref-1" aria-label="Back to reference 1">↩<\/a> <a href="#fn-ref-1-2" aria-label="Back to reference 1">↩<sup>2<\/sup><\/a><\/p>\s*<\/li>\s*<li id="fn-note">\s*<p>Another,\non two lines\. <a href="#fn-ref-note"/);
    expect(html).not.toContain('[^');
    // The list opens with no heading (GitHub's is for screen readers only), and none is in the outline.
    expect(html).not.toContain('Footnotes');
    expect(headings(BODY)).toEqual([{ depth: 2, text: 'fn 1' }]);
  });

  it("the references' numbers and the notes' way back (↩, ↩²) are no words: word count, excerpt, search terms and FAQ answers hold the text alone", () => {
    const text = 'Said once, noted and again. fn 1 Text. The first note. Another, on two lines.';
    const r = renderMarkdown(BODY);
    expect(r.excerpt).toBe(text);
    expect(r.words).toBe(15);
    expect(wordCount(BODY)).toBe(15);
    expect(r.searchTerms).toBe('said once noted and again fn 1 text the first note another on two lines');
    // The stored html gives the same terms (the search index is rebuilt from it).
    expect(htmlSearchTerms(r.html)).toBe(r.searchTerms);
    expect(renderMarkdown('## FAQ\n\n### Where is it?\n\nIn Paris[^1].\n\n[^1]: France.\n').faq).toEqual([{ question: 'Where is it?', answer: 'In Paris.' }]);
  });

  it("a heading never takes a note's id, whether markdown or raw HTML, and no other element keeps an id", () => {
    expect(renderHtml(BODY)).toContain('<h2 id="section-fn-1">fn 1</h2>');
    expect(renderHtml('## Note {#fn-2}\n\n<h3 id="fn-1">Raw</h3>\n\n<p id="top">x</p><li id="a b">y</li>')).toBe('<h2 id="section-fn-2">Note</h2>\n<h3 id="section-fn-1">Raw</h3><p>x</p><li>y</li>');
  });

  it('the same body renders the same whatever was rendered before it', () => {
    const first = renderMarkdown(BODY).html;
    headings('Other[^a] [^b]\n\n[^a]: x\n[^b]: y\n');
    renderHtml('Broken [^1] with no definition');
    expect(renderMarkdown(BODY).html).toBe(first);
    expect(renderHtml('No definition [^1] here.')).toBe('<p>No definition [^1] here.</p>');
    expect(renderHtml('# [^1] in a heading\n\n[^1]: x')).toContain('<h1 id="1-in-a-heading">');
  });

  it('a body of many footnotes is refused by name before any render; one at the limit renders in time', () => {
    const body = (n: number) => `${Array.from({ length: n }, (_, i) => `[^${i}]`).join(' ')}\n\n${Array.from({ length: n }, (_, i) => `[^${i}]: n`).join('\n')}\n`;
    // 4,000 references to 4,000 notes: marked-footnote looks each reference up among all the notes (32 s for 32,000).
    expect(() => assertRenderable('notes', body(4_000))).toThrow(/^The body of 'notes' has 8,000 footnote references and definitions \("\[\^"\); svc renders at most 2,000\./);
    expect(() => assertRenderable('notes', '[^1] '.repeat(2_001))).toThrow(/has 2,001 footnote references/);
    for (const within of [body(BODY_LIMITS.footnotes / 2), `${'[^1] '.repeat(BODY_LIMITS.footnotes - 1)}\n\n[^1]: n\n`]) {
      assertRenderable('notes', within);
      const started = performance.now();
      const html = renderHtml(within);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(html).toContain('<li id="fn-');
    }
  });
});
