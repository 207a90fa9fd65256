import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// An archive larger than one insert transaction (1,000 drafts) and than several publish
// transactions (rendered ahead in the workers while the one before is written): every post is
// imported once, published with its old date, listed in date order and found by a word of its body
// (the search terms come from the render workers).
describe('a large archive in one import', () => {
  it('1,100 posts: all imported and published, in order, each found by a word of its body', async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'archive'));
    for (let i = 0; i < 1_100; i++) {
      const date = new Date(Date.UTC(2019, 0, 1) + i * 3_600_000).toISOString();
      const body = `## Part one\n\nThe **word${i}x** and [a link](https://example.org/${i}).\n\n## Part two\n\nMore text about gardens, post ${i}.\n`;
      writeFileSync(path.join(w.d.dir, 'archive', `post-${i}.md`), `---\ntitle: Post ${i}\ndate: ${date}\ntags: [garden, t${i % 7}]\n---\n\n${body}`);
    }
    const r = await w.cli(['articles', 'import', 'archive', '--publish', '--json']);
    expect(r.json().counts).toMatchObject({ imported: 1_100, published: 1_100, failed: 0 });
    // The files are read in name order (post-0, post-1, post-10 ...) and inserted in date order,
    // the order they are published in: their ids, which sort by when they were made, follow it.
    const ids = (r.json().imported as Array<{ id: string; date: string }>).sort((a, b) => (a.date < b.date ? -1 : 1)).map((a) => a.id);
    expect(ids).toEqual([...ids].sort());
    const page = await w.api('/articles?limit=3');
    expect(page.body.data.total).toBe(1_100);
    expect(page.body.data.articles.map((a: { slug: string }) => a.slug)).toEqual(['post-1099', 'post-1098', 'post-1097']);
    for (const i of [0, 999, 1_000, 1_099]) {
      const found = await w.api(`/articles?q=word${i}x`);
      expect(found.body.data.articles.map((a: { slug: string }) => a.slug)).toEqual([`post-${i}`]);
    }
    const one = await w.api('/articles/post-1000');
    expect(one.body.data).toMatchObject({ publishedAt: new Date(Date.UTC(2019, 0, 1) + 1_000 * 3_600_000).toISOString(), wordCount: 15, outline: ['Part one', 'Part two'] });
  }, 240_000);
});
