import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditArticleSpendingCredit, latestAudit } from '../../src/articles/credited.js';
import { articlesBySlug, checkDrafts, focusKeywordRivals, getArticle, insertDraft, listArticles, refuseDuplicate, uniqueSlug, updateArticle } from '../../src/articles/service.js';
import { importFiles } from '../../src/imports/service.js';
import { listKeywords } from '../../src/keywords/service.js';
import { createArticle } from '../../src/publishing/create.js';
import { publishMany, scheduleMany } from '../../src/publishing/publish-many.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL, tempDir } from '../helpers/env.js';
import { datedDrafts, planWorkspace, statementsOf, wideStatements } from '../helpers/plans.js';
import { contentFixture } from '../content-api/fixture.js';

// Articles on a deployed SQLite file (no planner statistics: `workspace_id = ?` looks selective,
// and on a one-workspace install it is every row): list with filters and pages, get, create,
// update, the audit and its keyword checks, an import of a folder of markdown files and a
// re-import. Every statement sent is EXPLAINed as sent (helpers/plans.ts).

const BIG = ['articles', 'publications', 'content_index', 'content_articles', 'content_tags', 'content_search', 'content_terms', 'article_audits', 'webhook_events', 'webhook_event_snapshots'];

// Statements that read the workspace's articles whole by design: the list's total (a count of
// every article reads an index entry each, whatever the plan), and the keywords every article
// targets, which the keyword list matches its rows against.
const ALLOWED = [
  /^SEARCH articles USING COVERING INDEX \w+ \(workspace_id=\?\)\n    in: select count\(\*\) as `n` from `articles` where `workspace_id` = \? limit \?$/,
  /^SEARCH articles USING INDEX \w+ \(workspace_id=\?\)\n    in: select `id`, `slug`, `title`, `status`, `focus_keyword`, `secondary_keywords` from `articles` where `workspace_id` = \?$/,
];

describe.skipIf(PG_URL)('the statements about articles read by index on SQLite without statistics', () => {
  const fixture = planWorkspace(async (app, ws) => {
    const drafts = await datedDrafts(app, ws, 300, (i) => ({ bodyMarkdown: `Words ${i}. [next](/post-${i + 1}/)`, focusKeyword: `topic ${i % 10}` }));
    await publishMany(app, ws, drafts.slice(0, 200));
  });

  it('list, get, create, update, audit, keyword checks, an import and a re-import', { timeout: 60_000 }, async () => {
    const f = fixture();
    const app = f.d.app;
    const dir = tempDir();
    mkdirSync(path.join(dir, 'posts'));
    for (let i = 0; i < 5; i++) {
      writeFileSync(path.join(dir, 'posts', `imported-${i}.md`), `---\ntitle: Imported ${i}\ndate: 2023-0${i + 1}-02\ntags: [one, two]\n---\n\nImported words ${i}, see [post 3](/post-3/).\n`);
    }
    const sent = await statementsOf(app.db, async () => {
      const ws = await getWorkspace(app, f.ws.id);
      for (const status of [undefined, 'draft', 'published'] as const) {
        for (const offset of [0, 50, 250]) await listArticles(app, ws, { status, offset, limit: 50 });
      }
      const one = await getArticle(app, ws, 'post-7');
      await getArticle(app, ws, one.id);
      await createArticle(app, ws, { title: 'Made here', bodyMarkdown: 'Made words.', focusKeyword: 'topic 3' }, { spendCredit: true, refuseDuplicate: true });
      await expect(refuseDuplicate(app, ws, { title: 'Post 3', bodyMarkdown: 'x' })).rejects.toThrow(/already exists/);
      await uniqueSlug(app, ws.id, 'Post 4');
      await updateArticle(app, ws, 'post-8', { bodyMarkdown: 'New words.', slug: 'post-8-new' });
      await updateArticle(app, ws, one.id, { focusKeyword: 'topic 4' });
      await focusKeywordRivals(app, ws, one);
      await auditArticleSpendingCredit(app, ws, 'post-9', '/');
      await latestAudit(app, ws, 'post-9');
      await listKeywords(app, ws, { status: 'conflicts' });
      await articlesBySlug(app, ws, ['post-1', 'post-2', 'nope']);
      expect(await checkDrafts(app, ws, [{ label: 'a', input: { title: 'A', slug: 'post-1', bodyMarkdown: 'a' } }])).toHaveLength(1);
      const first = await importFiles(app, ws, ['posts'], { cwd: dir, publish: true });
      expect(first.imported).toHaveLength(5);
      const again = await importFiles(app, ws, ['posts'], { cwd: dir, publish: true });
      expect(again.already).toHaveLength(5);
    });
    expect((await wideStatements(app.db, sent, BIG)).filter((line) => !ALLOWED.some((a) => a.test(line)))).toEqual([]);
  });
});

describe('the article list pages through every status newest first', () => {
  it('pages of every size and offset are the workspace articles by creation time then id, ties included', { timeout: 60_000 }, async () => {
    // A clock that stands still while a batch is created: many articles share a creation time.
    let at = Date.parse('2026-01-01T00:00:00Z');
    const f = await contentFixture({ jobs: false, clock: { now: () => new Date(at) } });
    const app = f.d.app;
    const ws = await getWorkspace(app, f.ws.id);
    const made = [];
    for (let i = 0; i < 45; i++) {
      if (i % 4 === 0) at += 1000;
      made.push(await insertDraft(app, ws, { title: `Post ${i}`, slug: `post-${i}`, bodyMarkdown: 'Words.' }));
    }
    await publishMany(app, ws, made.filter((_, i) => i % 3 === 0));
    await scheduleMany(app, made.filter((_, i) => i % 3 === 1 && i % 2 === 0).map((article) => ({ article, at: new Date(at + 86_400_000).toISOString() })));
    const all = (await app.db('articles').where({ workspace_id: ws.id }).orderBy('created_at', 'desc').orderBy('id', 'desc').select('id', 'status')) as Array<{ id: string; status: string }>;
    expect(new Set(all.map((a) => a.status))).toEqual(new Set(['draft', 'published', 'scheduled']));
    for (const status of [undefined, 'draft', 'published', 'scheduled'] as const) {
      const expected = all.filter((a) => !status || a.status === status).map((a) => a.id);
      for (const limit of [1, 7, 50]) {
        const pages: string[] = [];
        for (let offset = 0; offset < expected.length + limit; offset += limit) {
          const page = await listArticles(app, ws, { status, limit, offset });
          expect(page.total).toBe(expected.length);
          pages.push(...page.articles.map((a) => a.id));
        }
        expect(pages).toEqual(expected);
      }
    }
  });

  it('a title taken more than a hundred times still gets the next number', { timeout: 60_000 }, async () => {
    const f = await contentFixture({ jobs: false });
    const ws = await getWorkspace(f.d.app, f.ws.id);
    const slugs = [];
    for (let i = 0; i < 103; i++) slugs.push((await insertDraft(f.d.app, ws, { title: 'Same title', bodyMarkdown: 'Words.' })).slug);
    expect(slugs.slice(0, 3)).toEqual(['same-title', 'same-title-2', 'same-title-3']);
    expect(slugs.slice(-3)).toEqual(['same-title-101', 'same-title-102', 'same-title-103']);
  });
});
