import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDraft } from '../../src/articles/service.js';
import type { Db } from '../../src/db/connect.js';
import { withTransaction } from '../../src/db/tx.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

// Every hot statement of the content API is held to an index: the statements a request sends
// (article by slug, pages, related posts, key by hash, categories, tags, sitemap, search) are
// EXPLAINed against 100,000 rows in the content tables, and none scans a big table whole.

const REAL = 100; // published through svc in the workspace the requests read
const COPIES = 999; // other workspaces, copies of it by SQL: 100,000 rows per content table
const BIG = ['workspaces', 'articles', 'connectors', 'blog_keys', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'content_state', 'content_sitemap_blocks'];
/** Columns whose values are made unique per copy (keys, and the unique workspace name and key hash). */
const PER_COPY = new Set(['id', 'workspace_id', 'article_id', 'connector_id', 'name', 'key_hash']);

/** Copy the workspace's rows of every big table COPIES times, each copy under new ids. */
async function fill(db: Db, workspaceId: string): Promise<void> {
  const pg = Boolean(PG_URL);
  const series = pg ? `generate_series(1, ${COPIES}) as s(k)` : `(with recursive n(k) as (select 1 union all select k + 1 from n where k < ${COPIES}) select k from n) as s`;
  for (const table of BIG) {
    const info = await db(table).columnInfo();
    const columns = Object.keys(info).filter((c) => !(table === 'content_search' && c === 'id'));
    // key_hash fills its column: the copy keeps 56 of its characters.
    const select = columns.map((c) => (PER_COPY.has(c) && !/int/.test(String(info[c].type)) ? `${c === 'key_hash' ? 'substr(t.key_hash, 1, 56)' : `t.${c}`} || '~' || s.k` : `t.${c}`)).join(', ');
    const mine = table === 'workspaces' ? 't.id = ?' : table === 'content_articles' ? 't.article_id in (select article_id from content_index where workspace_id = ?)' : 't.workspace_id = ?';
    await db.raw(`insert into ${table} (${columns.join(', ')}) select ${select} from ${table} as t cross join ${series} where ${mine}`, [workspaceId]);
  }
  await db.raw('analyze');
}

/** Full scans of a big table in a statement's plan (an FTS5 virtual table's MATCH is an index). */
async function fullScans(db: Db, sql: string, bindings: unknown[]): Promise<string[]> {
  if (PG_URL) {
    const { rows } = await db.raw(`explain (format json) ${sql.replace(/\$\d+/g, '?')}`, bindings as never);
    const found: string[] = [];
    const walk = (node: Record<string, any>) => {
      if (node['Node Type'] === 'Seq Scan' && BIG.includes(node['Relation Name'])) found.push(`Seq Scan on ${node['Relation Name']}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return found;
  }
  const rows: Array<{ detail: string }> = await db.raw(`explain query plan ${sql}`, bindings as never);
  return rows.map((r) => r.detail).filter((d) => /^SCAN (\w+)/.test(d) && BIG.includes(/^SCAN (\w+)/.exec(d)![1]) && !/VIRTUAL TABLE/.test(d));
}

describe(`the content API's statements use indexes at 100,000 rows (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    // Copying 100,000 rows in one statement may take longer than a request's deadline on a loaded machine.
    f = await contentFixture({ jobs: false, overrides: { 'content.cacheMaxBytes': 0, 'database.queryTimeout': '120s' } });
    const app = f.d.app;
    const drafts = await withTransaction(app.db, async (trx) => {
      const out = [];
      for (let i = 0; i < REAL; i++) {
        const at = new Date(Date.parse('2024-01-01T00:00:00Z') + i * 3_600_000).toISOString();
        out.push(await insertDraft({ ...app, db: trx }, await getWorkspace(app, f.ws.id), { title: `Post ${i}`, slug: `post-${i}`, bodyMarkdown: `Words about garden ${i}.`, focusKeyword: `topic ${i % 10}`, secondaryKeywords: [`theme ${i % 4}`] }, { publishedAt: at, updatedAt: at }));
      }
      return out;
    });
    await publishMany(app, await getWorkspace(app, f.ws.id), drafts);
    await fill(app.db, f.ws.id);
    expect(Number((await app.db('content_index').count({ n: '*' }).first())!.n)).toBe(REAL * (COPIES + 1));
  }, 180_000);
  afterAll(() => f.d.stop());

  it('article by slug, pages (all, category, tag, deep), related posts, key by hash, categories, tags, sitemap and search', { timeout: 60_000 }, async () => {
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const on = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    f.d.app.db.on('query', on);
    try {
      for (const path of ['/articles/post-50', '/articles?limit=10', '/articles?page=8&limit=10', '/articles?category=blog', '/articles?tag=topic-3', '/articles?tag=topic-3&category=blog', '/categories', '/tags', '/sitemap', '/articles?q=garden', '/articles/no-such-post']) {
        expect([200, 404], path).toContain((await f.api(path)).status);
      }
      expect((await f.api('/articles', { key: `svc_blog_${'z'.repeat(32)}` })).status).toBe(401);
    } finally {
      f.d.app.db.off('query', on);
    }
    const reads = sent.filter((s) => /^\s*(select|with)/i.test(s.sql));
    expect(reads.map((s) => s.sql).join('\n')).toMatch(/blog_keys/);
    expect(reads.map((s) => s.sql).join('\n')).toMatch(/content_search/);
    for (const s of reads) expect(await fullScans(f.d.app.db, s.sql, s.bindings), s.sql).toEqual([]);
  });
});
