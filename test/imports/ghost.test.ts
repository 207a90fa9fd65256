import { describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { importWorld, slugDates } from './world.js';
import { poll } from '../helpers/poll.js';


describe('import a Ghost JSON export', () => {
  it('html, Lexical and Mobiledoc posts, tags with the primary tag as category, authors, meta fields, dates; pages skipped; future posts scheduled', async () => {
    const clock = new TestClock();
    const w = await importWorld({ clock, webhook: true });
    w.fixture('ghost-export.json');
    const r = await w.cli(['articles', 'import', '--publish', 'ghost-export.json', '--base-url', 'https://old-ghost.example']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: 2 published, 1 scheduled, 1 draft\n/);
    expect(r.stderr).toBe(
      [
        'note: Skipped 1: Ghost pages (svc imports posts): ghost-export.json: page "about"',
        'note: Ghost "signup" cards have no markdown form and were left out: ghost-export.json',
        '',
      ].join('\n'),
    );
    expect(slugDates((await w.api('/articles')).body.data.articles)).toEqual([
      ['ghost-lexical-post', '2021-05-06T07:08:09.000Z', '2021-05-06T07:08:09.000Z'],
      ['ghost-html-post', '2020-10-11T12:00:00.000Z', '2021-01-02T03:04:05.000Z'],
    ]);
    const html = (await w.api('/articles/ghost-html-post')).body.data;
    expect(html).toMatchObject({
      metaTitle: 'Ghost HTML | Meta',
      metaDescription: 'Meta description from Ghost',
      category: { slug: 'guides' },
      tags: [{ slug: 'seo' }], // the internal #tag stays out
      author: 'Jo Writer, Sam Editor',
      image: 'https://old-ghost.example/content/images/2020/10/hero.jpg',
      imageAlt: 'Hero alt',
    });
    expect(html.markdown).toBe('Hello from **Ghost**.\n\n## Details\n\n![Inline](https://old-ghost.example/content/images/2020/10/inline.jpg)\n\n| Plan | Price |\n| --- | --- |\n| Free | 0 |');
    expect(html.html).toContain('<table>');
    const lexical = (await w.api('/articles/ghost-lexical-post')).body.data;
    expect(lexical).toMatchObject({ category: { slug: 'blog' }, tags: [{ slug: 'news' }, { slug: 'seo' }], author: 'Sam Editor', outline: ['A section'] });
    expect(lexical.markdown).toContain('Lexical **bold** and [a link](https://example.org/x)');
    expect(lexical.markdown).toContain('![A picture](https://old-ghost.example/content/images/2021/05/pic.png)');
    expect(lexical.html).toContain('<pre><code class="language-js">let x = 1 &lt; 2;\n</code></pre>');
    expect(lexical.html).toContain('<td>1</td>'); // the markdown card's table

    const draft = (await w.cli(['articles', 'show', 'ghost-mobiledoc-draft', '--json'])).json();
    expect(draft).toMatchObject({ status: 'draft' });
    expect(draft.bodyMarkdown).toBe('Mobiledoc **strong** text [linked](https://example.org/m)  \nafter break\n\n## From a card\n\nCard text.\n\n-   item');

    // The scheduled post goes out at its own time, with that time as its publishedAt.
    expect((await w.cli(['articles', 'show', 'ghost-scheduled-post', '--json'])).json()).toMatchObject({ status: 'scheduled', scheduledAt: '2031-01-01T09:00:00.000Z' });
    expect((await w.api('/articles/ghost-scheduled-post')).status).toBe(404);
    // The imported posts' events settled first: a lease is judged on the clock, so a jump of years
    // voids one still held and its event is sent again (at least once, as on any lease lost).
    const pending = () => w.d.app.db('webhook_events').where({ status: 'pending' }).count({ n: '*' }).first();
    expect(Number((await poll(pending, (r) => Number(r?.n) === 0))?.n)).toBe(0);
    clock.advance(Date.parse('2031-01-01T09:00:01Z') - clock.now().getTime());
    const live = await poll(() => w.api('/articles/ghost-scheduled-post'), (x) => x.status === 200);
    expect(live.body.data).toMatchObject({ publishedAt: '2031-01-01T09:00:00.000Z' });
    const events = await w.receiver!.waitFor(3);
    expect(events.map((e) => [e.body.article.slug, e.body.article.publishedAt]).sort()).toEqual([
      ['ghost-html-post', '2020-10-11T12:00:00.000Z'],
      ['ghost-lexical-post', '2021-05-06T07:08:09.000Z'],
      ['ghost-scheduled-post', '2031-01-01T09:00:00.000Z'],
    ]);
  });
});
