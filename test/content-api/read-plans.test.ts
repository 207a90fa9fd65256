import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_TYPE_NAMES } from '../../src/articles/categories.js';
import { insertDraft } from '../../src/articles/service.js';
import { writerOf } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { createPreview } from '../../src/publishing/previews.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { wideReads } from '../helpers/plans.js';

// content_sitemap_blocks is left out: the sitemap reads it whole by design, a row per 256 articles.
const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'content_previews', 'webhook_events'];
import { seedArticle } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';

// The content API's reads as a deployed SQLite file plans them: one workspace (the common
// install) and no statistics (nothing runs ANALYZE), so SQLite takes `workspace_id = ?` for a
// selective term that is in fact every row. query-plans.test.ts plans after ANALYZE among 1,000
// workspaces, where that term is selective; PostgreSQL plans from statistics, and without them
// plans-without-stats.test.ts bounds its rows read. Every statement the requests send (uncached)
// is EXPLAINed as sent: none may read a big table whole, or by the workspace alone unless it stops
// at a LIMIT.
describe.skipIf(PG_URL)('the content API reads by index on SQLite without statistics, in one workspace', () => {
  const N = 400;
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ jobs: false, overrides: { 'content.cacheMaxBytes': 0 } });
    const app = f.d.app;
    const ws = await getWorkspace(app, f.ws.id);
    const drafts = await withTransaction(app.db, async (trx) => {
      const out = [];
      for (let i = 0; i < N; i++) {
        const at = new Date(Date.parse('2024-01-01T00:00:00Z') + i * 3_600_000).toISOString();
        const input = { title: `Post ${i}`, slug: `post-${i}`, contentType: CONTENT_TYPE_NAMES[i % CONTENT_TYPE_NAMES.length], bodyMarkdown: `Words about garden ${i}.`, focusKeyword: `topic ${i % 10}`, secondaryKeywords: [`theme ${i % 4}`] };
        out.push(await insertDraft({ ...app, db: trx }, ws, input, { publishedAt: at, updatedAt: at }));
      }
      return out;
    });
    await publishMany(app, ws, drafts);
    expect((await app.db.raw("select count(*) as n from sqlite_master where name = 'sqlite_stat1'"))[0].n).toBe(0);
  }, 120_000);
  afterAll(() => f.d.stop());

  it('article by slug, pages (all, category, tag, both, deep), related posts, key by hash, categories, tags, sitemap, search and a preview', { timeout: 60_000 }, async () => {
    const app = f.d.app;
    const draft = await seedArticle(app, await getWorkspace(app, f.ws.id), { title: 'Draft', focusKeyword: 'topic 3', contentType: 'GUIDE' });
    const { token } = await createPreview(app, await getWorkspace(app, f.ws.id), draft.slug);
    // No post shares its tag: its related posts are its category's newest.
    await f.publish({ title: 'Lonely', slug: 'lonely', focusKeyword: 'nobody else', contentType: 'HOW_TO' });
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const on = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    for (const db of new Set([app.db, writerOf(app.db)])) db.on('query', on);
    try {
      const paths = [
        '/articles/post-250',
        '/articles/post-3',
        '/articles?limit=10',
        '/articles?page=20&limit=10',
        '/articles?page=39&limit=10',
        '/articles?category=blog',
        '/articles?category=blog&page=7&limit=10',
        '/articles?tag=topic-3',
        '/articles?tag=theme-1&page=9&limit=10',
        '/articles?tag=topic-3&category=blog',
        '/articles?tag=caf%C3%A9', // a slug with two spellings: the stored one is looked up
        '/articles?tag=theme-1&category=guides&page=3&limit=5',
        '/categories',
        '/tags',
        '/sitemap',
        '/articles?q=garden',
        '/articles?q=garden&page=5&limit=10',
        '/articles?q=garden%20topic',
        '/articles?q=post%2012',
        '/articles?q=garden&category=blog',
        '/articles?q=garden&tag=topic-3',
        '/articles?q=garden&tag=topic-3&category=blog&page=1&limit=5',
        '/articles?q=%E4%BA%AC',
        '/articles/lonely',
        '/articles/no-such-post',
        `/articles/${draft.slug}?preview=${token}`,
      ];
      for (const path of paths) expect([200, 404], path).toContain((await f.api(path)).status);
      expect((await f.api('/articles', { key: `svc_blog_${'z'.repeat(32)}` })).status).toBe(401);
    } finally {
      for (const db of new Set([app.db, writerOf(app.db)])) db.off('query', on);
    }
    const reads = sent.filter((s) => /^\s*(select|with)/i.test(s.sql));
    const all = reads.map((s) => s.sql).join('\n');
    for (const table of ['blog_keys', 'content_search', 'content_previews', 'content_tags', 'content_terms', 'content_sitemap_blocks']) expect(all).toMatch(table);
    expect(all).toMatch(/from `content_terms` where .* and `slug` in/);
    const found: string[] = [];
    for (const s of new Map(reads.map((x) => [x.sql, x])).values()) {
      for (const line of await wideReads(app.db, s.sql, s.bindings, BIG)) found.push(`${line}\n    in: ${s.sql.slice(0, 300)}`);
    }
    expect(found).toEqual([]);
  });
});
