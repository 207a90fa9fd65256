import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishedArticle } from '../../src/content/published.js';
import { searchRows } from '../../src/content/search-store.js';
import { parseSearchQuery } from '../../src/content/search-terms.js';
import { migrateLatest, migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/log.js';
import { publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { PG_URL, freshConfig } from '../helpers/env.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

const PACK = '2026-11-29-1600-pack-content-articles';
const FILL = '2026-11-26-0901-fill-content-search';

describe(`the content storage migrations (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('convert served snapshots and the search index down to the old storage and back, nothing lost, and the first fill still reads the old snapshots', async () => {
    const { config } = await freshConfig();
    const app = await createApp({ config, log: createLogger('silent') });
    try {
      const ws = await seedWorkspace(app);
      await generateBlogKey(app, ws);
      const a = await seedArticle(app, ws, { title: 'Compost in winter', bodyMarkdown: '## Why\n\nLeaves and *kitchen* scraps rot slowly.\n\n## How\n\nTurn the heap.', focusKeyword: 'compost' });
      const b = await seedArticle(app, ws, { title: 'Pruning roses', bodyMarkdown: 'Cut above an outward bud; compost the cuttings.' });
      await publishArticle(app, ws, a.id);
      await publishArticle(app, ws, b.id);
      const served = async () => [await publishedArticle(app, ws.id, a.slug), await publishedArticle(app, ws.id, b.slug)];
      const found = async (q: string) => (await searchRows(app.db, ws.id, parseSearchQuery(q), { offset: 0, limit: 10 })).rows.map((r) => JSON.parse(r).slug);
      const before = await served();
      expect(before[0]).toMatchObject({ title: 'Compost in winter', markdown: expect.stringContaining('*kitchen*'), html: expect.stringContaining('<em>kitchen</em>'), outline: ['Why', 'How'] });
      expect(await found('compost')).toEqual([a.slug, b.slug]); // the title weighs more

      while ((await migrationStatus(app.db)).applied.includes(PACK)) await migrateStep(app.db, 'down');
      const old = await app.db('content_articles').where({ article_id: a.id }).first('article_json');
      expect(JSON.parse(old.article_json)).toEqual(before[0]);
      if (!PG_URL) expect((await app.db.raw('select title from content_search_fts where body match ?', ['kitchen']))[0].title).toMatch(/compost/);
      expect(await found('kitchen')).toEqual([a.slug]);

      while ((await migrationStatus(app.db)).applied.includes(FILL)) await migrateStep(app.db, 'down');
      expect(Number((await app.db('content_search').count({ n: '*' }).first())!.n)).toBe(0);
      expect(await migrateStep(app.db, 'up')).toEqual([FILL]);
      expect(await found('kitchen')).toEqual([a.slug]);

      expect(await migrateLatest(app.db)).toContain(PACK);
      expect(await served()).toEqual(before);
      expect(await found('compost')).toEqual([a.slug, b.slug]);
      expect(await found('kitchen scraps')).toEqual([a.slug]);
      if (!PG_URL) expect((await app.db.raw('select title from content_search_fts where body match ?', ['kitchen']))[0].title).toBeNull(); // contentless: no copy of the text
      // Removal by rowid alone works on the contentless table: an unpublished article is not found.
      await unpublishArticle(app, ws, a.id);
      expect(await found('compost')).toEqual([b.slug]);
      if (!PG_URL) expect((await app.db.raw('select count(*) as n from content_search_fts where content_search_fts match ?', ['kitchen']))[0].n).toBe(0);
    } finally {
      await app.close();
    }
  });
});
