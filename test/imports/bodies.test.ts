import { describe, expect, it } from 'vitest';
import { ghostExport, wxr, write } from './samples.js';
import { importWorld } from './world.js';

const classic = [
  'First paragraph of a classic post.',
  '<h2>A heading</h2>\nA paragraph right under the heading,\nwith a line break.',
  '<strong>Address Tag</strong>',
  '<address>1 Infinite Loop\nCupertino, CA 95014\nUnited States</address><strong>Anchor Tag (aka. Link)</strong>',
  'E = MC<sup>2</sup> and H<sub>2</sub>O.',
  'Bare link https://en.wikipedia.org/wiki/Snake_case_(x) and <a href="https://x.example/a_b]c">https://x.example/a_b]c</a> and <a href="https://x.example/under_score">text</a>.',
  ...Array.from({ length: 19 }, (_, i) => `Paragraph ${i + 7} with <em>some</em> text.`),
].join('\n\n');

describe('bodies render as they did on the old site', () => {
  it('a WordPress classic-editor post gets its paragraphs, line breaks, <address> lines, sub/sup, and links with _ and ] intact', async () => {
    const w = await importWorld();
    write(w.d.dir, 'classic.xml', wxr([{ id: 1, name: 'classic', content: classic }]));
    const r = await w.cli(['articles', 'import', '--publish', 'classic.xml']);
    expect(r.code, r.stderr).toBe(0);
    const { html, markdown } = (await w.api('/articles/classic')).body.data;
    expect(html.match(/<p>/g)).toHaveLength(26); // 25 blank-line blocks: the heading and its paragraph, the address and the strong after it are two each
    expect(html).toContain('<p>First paragraph of a classic post.</p>');
    expect(html).toContain('<h2 id="a-heading">A heading</h2>\n<p>A paragraph right under the heading,<br />with a line break.</p>');
    expect(html).toContain('1 Infinite Loop<br />Cupertino, CA 95014<br />United States');
    expect(html).toContain('<p><strong>Anchor Tag (aka. Link)</strong></p>');
    expect(html).toContain('E = MC<sup>2</sup> and H<sub>2</sub>O.');
    expect(html).toContain('href="https://en.wikipedia.org/wiki/Snake_case_(x)"');
    expect(html).toContain('href="https://x.example/under_score"');
    expect(html).toContain('>https://x.example/a_b]c</a>');
    expect(html).not.toContain('%5C');
    expect(markdown).not.toContain('\\_');
  });

  it('escaped text stays text: no live tag appears in the stored markdown, and the text shows in html (Ghost and WordPress)', async () => {
    const w = await importWorld();
    const escaped = '<p>Escaped: &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; &lt;a href="javascript:alert(3)"&gt;x&lt;/a&gt; &amp;lt;b&amp;gt; AT&amp;T</p>';
    const real = '<p>Real: <script>alert(4)</script><img src="https://x.example/a.png" onerror="alert(5)"> <a href="javascript:alert(6)">js link</a> <a href=" JavaScript:alert(7)">js2</a></p>';
    write(w.d.dir, 'hostile.xml', wxr([{ id: 1, name: 'wp-hostile', content: escaped + real }]));
    write(w.d.dir, 'hostile.json', ghostExport([{ slug: 'ghost-hostile', title: 'Hostile', html: escaped + real }]));
    const r = await w.cli(['articles', 'import', '--publish', 'hostile.xml', 'hostile.json']);
    expect(r.code, r.stderr).toBe(0);
    for (const slug of ['wp-hostile', 'ghost-hostile']) {
      const { html, markdown } = (await w.api(`/articles/${slug}`)).body.data;
      for (const live of ['<script', '<img src=x', '<a href="javascript', '](javascript', 'onerror="alert(5)', 'javascript:alert(6)', 'alert(4)']) expect(markdown, `${slug} ${live}`).not.toContain(live);
      expect(html).toContain('Escaped: &lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; &lt;a href="javascript:alert(3)"&gt;x&lt;/a&gt; &amp;lt;b&amp;gt; AT&amp;T');
      expect(html).toContain('<img src="https://x.example/a.png" alt="" />');
      expect(html).toContain('js link js2');
      for (const bad of ['<script', 'onerror="', '<a href="javascript', 'alert(4)', 'alert(6)']) expect(html).not.toContain(bad);
    }
  });
});
