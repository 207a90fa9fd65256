import { describe, expect, it } from 'vitest';
import { insertDraft, updateArticle } from '../../src/articles/service.js';
import { withTransaction } from '../../src/db/tx.js';
import { findArticles, publishMany } from '../../src/publishing/publish-many.js';
import { deleteArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { datedDrafts, planWorkspace, statementsOf, wideStatements } from '../helpers/plans.js';

// A deployed SQLite file has no planner statistics (nothing runs ANALYZE), so SQLite takes
// `workspace_id = ?` for a selective term; on a one-workspace install it is every row. The
// statements publishing sends (publish, republish, unpublish, delete, a bulk publish in the middle
// of the archive, looking articles up by id or slug) are EXPLAINed as sent: none may read a big
// table whole, or by the workspace alone unless it stops at a LIMIT. PostgreSQL plans from
// statistics (query-plans.test.ts covers its reads).

// content_sitemap_blocks is left out: the sitemap reads it whole by design, a row per 256 articles.
const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'webhook_events', 'webhook_event_snapshots'];

describe.skipIf(PG_URL)('the statements publishing sends read by index on SQLite without statistics', () => {
  const fixture = planWorkspace(async (app, ws) => {
    const drafts = await datedDrafts(app, ws, 300, (i) => ({ focusKeyword: `topic ${i % 10}`, secondaryKeywords: [`theme ${i % 4}`] }));
    await publishMany(app, ws, drafts);
  });

  it('publish, a bulk publish among older posts, republish, unpublish, delete and lookups by id or slug', { timeout: 60_000 }, async () => {
    const f = fixture();
    const app = f.d.app;
    const sent = await statementsOf(app.db, async () => {
      const ws = await getWorkspace(app, f.ws.id);
      const fresh = await f.publish({ title: 'Newest', slug: 'newest', focusKeyword: 'topic 1' });
      // Dated among the served posts: ranks move up, the sitemap block grows and splits.
      const older = await withTransaction(app.db, async (trx) => {
        const out = [];
        for (let i = 0; i < 600; i++) {
          const at = new Date(Date.parse('2024-03-01T00:00:00Z') + i * 60_000).toISOString();
          out.push(await insertDraft({ ...app, db: trx }, ws, { title: `Old ${i}`, slug: `old-${i}`, bodyMarkdown: 'Old words.', focusKeyword: `topic ${i % 3}` }, { publishedAt: at, updatedAt: at }));
        }
        return out;
      });
      await publishMany(app, ws, await findArticles(app, ws, older.map((a, i) => (i % 2 ? a.id : a.slug))));
      await updateArticle(app, ws, 'post-10', { bodyMarkdown: 'New words.' });
      await publishArticle(app, ws, 'post-10');
      await updateArticle(app, ws, 'post-11', { focusKeyword: 'topic 99' });
      await publishArticle(app, ws, 'post-11');
      await unpublishArticle(app, ws, 'post-12');
      await deleteArticle(app, ws, fresh.id);
    });
    expect(sent.map((s) => s.sql).join('\n')).toMatch(/sitemap_json/);
    expect(await wideStatements(app.db, sent, BIG)).toEqual([]);
  });
});
