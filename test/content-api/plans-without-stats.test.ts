import { describe, expect, it } from 'vitest';
import { CONTENT_TYPE_NAMES } from '../../src/articles/categories.js';
import { insertDraft } from '../../src/articles/service.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { withTransaction } from '../../src/db/tx.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

// A new install that imports an archive has no statistics yet (autovacuum's first ANALYZE comes
// up to a minute later; here never: it is off), so PostgreSQL plans the content API's reads as if
// each table held a few rows. Uncached answers must still read a bounded number of rows: the list
// page's open-ended rank range was fetched and sorted whole (3,002 rows for page 0 of 3,000 posts),
// and related posts' IN list of candidates was a scan of content_index; and an import's batch
// found its publications through the connector's index (every publication of the connector,
// more per batch as the import grew). Rows read are what each
// statement's own EXPLAIN ANALYZE reports, on the statements the request sent, with their values.
// 600 posts: never analysed, a table's size does not change the plan (the planner assumes a few
// rows whatever is there), and each plan at fault read a row per post or more, 500-600 here:
// well above every bound below, which the good plans meet with room (measured in the comments).
describe.skipIf(!PG_URL)('the content API on a PostgreSQL database without statistics', () => {
  it('imports 600 posts, then answers a list page and an article (with related posts), reading a bounded number of rows', { timeout: 120_000 }, async () => {
    const N = 600;
    const f = await contentFixture({ jobs: false, overrides: { 'content.cacheMaxBytes': 0 } });
    const db = f.d.app.db;
    const tables: string[] = (await db('pg_tables').where({ schemaname: 'public' }).pluck('tablename')) as string[];
    for (const t of tables) await db.raw('alter table ?? set (autovacuum_enabled = false)', [t]);
    const ws = await getWorkspace(f.d.app, f.ws.id);
    /**
     * The rows every scan of the statements `request` sent read (those matching `sent`: EXPLAIN
     * ANALYZE of each, with its values), and how many statements that was.
     */
    const rowsRead = async (request: () => Promise<unknown>, matching = /content_/) => {
      const sent: Array<{ sql: string; bindings: unknown[] }> = [];
      const on = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
      db.on('query', on);
      try {
        await request();
      } finally {
        db.off('query', on);
      }
      let read = 0;
      const explained = sent.filter((q) => /^\s*select/i.test(q.sql) && matching.test(q.sql));
      const walk = (node: Record<string, any>) => {
        if (/Scan$/.test(node['Node Type']) && node['Relation Name']) read += (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
        for (const child of node.Plans ?? []) walk(child);
      };
      for (const s of explained) {
        const { rows } = await db.raw(`explain (analyze, format json) ${s.sql.replace(/\$\d+/g, '?')}`, s.bindings as never);
        walk(rows[0]['QUERY PLAN'][0].Plan);
      }
      return { rows: read, statements: explained.length };
    };

    const start = Date.parse('2020-01-01T00:00:00Z');
    let lookups = { rows: 0, statements: 0 };
    for (let b = 0; b < N; b += 100) {
      const drafts = await withTransaction(db, async (trx) => {
        const out = [];
        for (let i = b; i < b + 100; i++) {
          const at = new Date(start + i * 3_600_000).toISOString();
          const input = { title: `Post ${i}`, slug: `post-${i}`, contentType: CONTENT_TYPE_NAMES[i % CONTENT_TYPE_NAMES.length], bodyMarkdown: `## Part\n\nWords about post ${i}.`, focusKeyword: `topic ${i % 40}`, secondaryKeywords: [`theme ${i % 25}`, `season ${i % 7}`] };
          out.push(await insertDraft({ ...f.d.app, db: trx }, ws, input, { publishedAt: at, updatedAt: at }));
        }
        return out;
      });
      const publish = async () => expect((await publishMany(f.d.app, ws, drafts)).published).toHaveLength(100);
      // The batch's lookups by article id: its publications, and which of its articles are served already.
      if (b === N - 100) lookups = await rowsRead(publish, /from "?(publications|content_index)"? where "?article_id"? = u\.key/);
      else await publish();
    }
    // The last batch of 100, with 500 posts already published: at most a row per article each
    // (none yet), 200 measured. Through the connector's index, every publication of the connector (500).
    expect(lookups.statements).toBe(2);
    expect(lookups.rows).toBeLessThan(300);
    expect(await db('pg_class').where({ relname: 'content_index' }).first('reltuples')).toEqual({ reltuples: -1 }); // never analysed

    const page = await rowsRead(async () => expect((await f.json('/articles?limit=10')).data.articles).toHaveLength(10));
    const deep = await rowsRead(async () => expect((await f.json('/articles?limit=10&page=30')).data.articles).toHaveLength(10));
    const article = await rowsRead(async () => expect((await f.json('/articles/post-590')).data.relatedPosts).toHaveLength(3));
    // Measured at 600 posts: the page 14 rows, the deep page (half-way, 300 posts past it) 14, the
    // article 132 (its tags' windows of up to 100 posts and their candidates); at 3,000 posts the
    // article read about 540. The open-ended range read every post from the page on (300-600
    // here) and the IN list every row of content_index (600).
    for (const r of [page, deep, article]) expect(r.statements).toBeGreaterThan(0);
    expect(page.rows).toBeLessThan(300);
    expect(deep.rows).toBeLessThan(100);
    expect(article.rows).toBeLessThan(400);

    // One more post in the largest category and tags (about 85-120 posts each): the sizes of its
    // groups are a seek each (8 rows measured). A grouped max() read every row of them (2,456 rows
    // at 3,000 posts, about 490 here).
    const one = await insertDraft(f.d.app, ws, { title: 'One more', slug: 'one-more', contentType: CONTENT_TYPE_NAMES[0], bodyMarkdown: 'Words.', focusKeyword: 'topic 0', secondaryKeywords: ['theme 0', 'season 0'] });
    const sizes = await rowsRead(() => publishArticle(f.d.app, ws, one.id), /as text\) as slug|max\("(cat_)?rank"\)/);
    expect(sizes.statements).toBe(2); // categories and tags, for the ranks (the terms' counts follow from them)
    expect(sizes.rows).toBeLessThan(20);
  });
});
