import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { migrateLatest, migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/log.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { focusKeywordRivals } from '../../src/articles/service.js';
import { freshConfig } from '../helpers/env.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';

const MINE = '2026-11-23-1700-add-article-imported-dates';

describe('the article column migrations of imports and publish failures', () => {
  it('roll back and forward with published articles in place: no snapshot, publication or event is lost', async () => {
    const { config } = await freshConfig();
    const app = await createApp({ config, log: createLogger('silent') });
    try {
      const ws = await seedWorkspace(app);
      await generateBlogKey(app, ws);
      const a = await seedArticle(app, ws, { title: 'Kept' });
      await publishArticle(app, ws, a.id);
      const count = async (table: string) => Number((await app.db(table).count({ n: '*' }).first())?.n);
      const before = { content_index: await count('content_index'), content_articles: await count('content_articles'), publications: await count('publications') };
      expect(before).toEqual({ content_index: 1, content_articles: 1, publications: 1 });
      // Down to before the first of them (SQLite drops a column by rebuilding the table: inside a
      // transaction, dropping the old `articles` would cascade-delete everything that references it).
      while ((await migrationStatus(app.db)).applied.includes(MINE)) await migrateStep(app.db, 'down');
      expect(await app.db('articles').first('id', 'title')).toEqual({ id: a.id, title: 'Kept' });
      expect({ content_index: await count('content_index'), content_articles: await count('content_articles'), publications: await count('publications') }).toEqual(before);
      await migrateLatest(app.db);
      expect(await app.db('articles').first('imported_published_at', 'publish_failures')).toEqual({ imported_published_at: null, publish_failures: 0 });
    } finally {
      await app.close();
    }
  });

  it('fill the focus-keyword family of articles written before it, so their conflicts are found by the index', async () => {
    const { config } = await freshConfig();
    const app = await createApp({ config, log: createLogger('silent') });
    try {
      const ws = await seedWorkspace(app);
      const a = await seedArticle(app, ws, { title: 'One', focusKeyword: 'Pour-over coffees' });
      const b = await seedArticle(app, ws, { title: 'Two', focusKeyword: 'pour over coffee' });
      await seedArticle(app, ws, { title: 'Three', focusKeyword: null });
      const family = '2026-11-29-1741-fill-article-focus-family';
      while ((await migrationStatus(app.db)).applied.includes(family)) await migrateStep(app.db, 'down');
      await migrateLatest(app.db);
      const rows = await app.db('articles').orderBy('title').select('title', 'focus_family');
      expect(rows).toEqual([{ title: 'One', focus_family: 'pour over coffee' }, { title: 'Three', focus_family: null }, { title: 'Two', focus_family: 'pour over coffee' }]);
      expect((await focusKeywordRivals(app, ws, a)).map((r) => r.id)).toEqual([b.id]);
    } finally {
      await app.close();
    }
  });
});
