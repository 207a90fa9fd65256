import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDrafts, publishMany } from '../../src/publishing/publish-many.js';
import { updateArticle } from '../../src/articles/service.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { expectCleanError } from '../cli/sandbox.js';
import { startDaemonOn } from '../helpers/daemon.js';
import { seedArticle } from '../helpers/seed.js';
import { importWorld } from '../imports/world.js';
import { workerLooks } from '../helpers/ticks.js';

describe('svc articles publish with many articles', () => {
  it('publishes several ids or slugs in one command, or every draft; an unknown one stops it before anything is published', async () => {
    const w = await importWorld();
    const [a, b, c] = [await seedArticle(w.d.app, w.ws, { title: 'Alpha' }), await seedArticle(w.d.app, w.ws, { title: 'Beta' }), await seedArticle(w.d.app, w.ws, { title: 'Gamma' })];
    expectCleanError(await w.cli(['articles', 'publish', a.slug, 'nope', b.id, 'gone']), 1, `error: No article "nope", "gone" in workspace ${w.ws.name}; nothing was published`);
    expect((await w.api('/articles')).body.data.total).toBe(0);
    const r = await w.cli(['articles', 'publish', a.slug, b.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.json();
    expect(out.published.sort((x: { slug: string }, y: { slug: string }) => x.slug.localeCompare(y.slug))).toEqual([
      { id: a.id, slug: 'alpha', targets: [{ kind: 'headless', event: 'article.published' }] },
      { id: b.id, slug: 'beta', targets: [{ kind: 'headless', event: 'article.published' }] },
    ]);
    expect(out).toMatchObject({ skipped: [], failed: [] });
    const drafts = await w.cli(['articles', 'publish', '--all-drafts']);
    expect(drafts.stdout).toMatch(/^Published 1 article\nSLUG\s+TO\s+ID\ngamma\s+headless: published\s+art_/);
    expect((await w.api('/articles')).body.data.articles.map((x: { id: string }) => x.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect((await w.cli(['articles', 'publish', '--all-drafts'])).stdout).toBe('No drafts to publish\n');
    expectCleanError(await w.cli(['articles', 'publish']), 2, 'error: Name the articles to publish (ids or slugs), or pass --all-drafts');
    expectCleanError(await w.cli(['articles', 'publish', a.slug, '--all-drafts']), 2, 'error: Pass article ids or slugs, or --all-drafts, not both');
  });

  it('an article edited after the list was read is served as it is now, not as listed', async () => {
    const w = await importWorld();
    const list = [];
    for (let i = 0; i < 12; i++) list.push(await seedArticle(w.d.app, w.ws, { title: `Listed ${i}`, focusKeyword: `topic ${i}` }));
    const ws = await getWorkspace(w.d.app, w.ws.id);
    // The list is read first (as svc articles publish --all-drafts does); two articles change before their transaction.
    await updateArticle(w.d.app, ws, list[3].id, { title: 'Edited title', focusKeyword: 'edited topic' });
    await updateArticle(w.d.app, ws, list[9].id, { bodyMarkdown: 'A body written after the list was read.' });
    const r = await publishMany(w.d.app, ws, list);
    expect(r.published.length).toBe(12);
    const served = async (slug: string) => (await w.api(`/articles/${slug}`)).body.data;
    expect(await served(list[3].slug)).toMatchObject({ title: 'Edited title', tags: [{ slug: 'edited-topic' }] });
    expect((await served(list[9].slug)).html).toContain('A body written after the list was read.');
    expect(await served(list[4].slug)).toMatchObject({ title: 'Listed 4', tags: [{ slug: 'topic-4' }] });
    expect((await w.api('/articles?tag=edited-topic')).body.data.articles.map((a: { id: string }) => a.id)).toEqual([list[3].id]);
    expect((await w.api('/articles?tag=topic-3')).body.data.total).toBe(0);
  });

  it('two processes publishing every draft at once publish each draft once', async () => {
    const w = await importWorld({ webhook: true });
    const other = await startDaemonOn(w.d.env, w.d.dir, {}, false);
    for (let i = 0; i < 30; i++) await seedArticle(w.d.app, w.ws, { title: `Post ${i}` });
    const ws = await getWorkspace(w.d.app, w.ws.id);
    const [one, two] = await Promise.all([
      publishMany(w.d.app, ws, await listDrafts(w.d.app, ws), { onlyIf: 'draft' }),
      publishMany(other.app, ws, await listDrafts(other.app, ws), { onlyIf: 'draft' }),
    ]);
    expect(one.published.length + two.published.length).toBe(30);
    expect(one.skipped.length + two.skipped.length).toBe(30);
    expect((await w.api('/articles?limit=100')).body.data.total).toBe(30);
    // Exactly one article.published per article reaches the receiver, and no article.updated.
    const got = await w.receiver!.waitFor(30);
    expect(await workerLooks(w.d.app)).toEqual([{ claimed: 0 }, { claimed: 0 }]);
    expect(got.length).toBe(30);
    expect(new Set(got.map((x) => x.body.article.id)).size).toBe(30);
    expect(got.every((x) => x.body.event === 'article.published')).toBe(true);
  });

  it('an archive older than what is served slots in below it: pages, tags and the sitemap stay in order', async () => {
    const w = await importWorld();
    // 260 newer posts first: more than one sitemap block, so the archive's splits move a block above them.
    const post = (name: string, date: Date) => {
      writeFileSync(path.join(w.d.dir, name), `---\ntitle: ${name}\ndate: ${date.toISOString()}\ntags: [archive]\n---\nText of ${name}.\n`);
      return name;
    };
    const recent = Array.from({ length: 260 }, (_, i) => post(`new-${String(i).padStart(3, '0')}.md`, new Date(Date.UTC(2025, 0, 1) + i * 3_600_000)));
    expect((await w.cli(['articles', 'import', '--publish', ...recent])).code).toBe(0);
    const newest = (await w.api('/sitemap')).body.data.articles.map((a: { slug: string }) => a.slug);
    expect(newest).toEqual(recent.map((f) => f.replace('.md', '')).reverse());
    const archiveTag = async () => ({ sitemap: (await w.api('/sitemap')).body.data.tags.find((t: { slug: string }) => t.slug === 'archive'), listed: (await w.api('/tags')).body.data.find((t: { slug: string }) => t.slug === 'archive') });
    const before = await archiveTag();
    expect(before.listed.count).toBe(260);
    const n = 520; // more than two sitemap blocks' worth, all below the new posts
    const files = Array.from({ length: n }, (_, i) => post(`old-${String(i).padStart(3, '0')}.md`, new Date(Date.UTC(2015, 0, 1) + i * 86_400_000)));
    const r = await w.cli(['articles', 'import', '--publish', ...files]);
    expect(r.code, r.stderr).toBe(0);
    const expected = [...newest, ...files.map((f) => f.replace('.md', '')).reverse()];
    // The tag counts the older posts too and keeps the lastmod of its newest post.
    expect(await archiveTag()).toEqual({ sitemap: before.sitemap, listed: { ...before.listed, count: 780 } });
    const sitemap = (await w.api('/sitemap')).body.data.articles.map((a: { slug: string }) => a.slug);
    expect(sitemap).toEqual(expected);
    const pageOf = async (q: string) => (await w.api(`/articles?${q}`)).body.data.articles.map((a: { slug: string }) => a.slug);
    expect(await pageOf('limit=3&page=0')).toEqual(expected.slice(0, 3));
    expect(await pageOf('limit=100&page=5&tag=archive')).toEqual(expected.slice(500, 600));
    expect(await pageOf('limit=100&page=7')).toEqual(expected.slice(700, 780));
    // No sitemap block grew past twice its size.
    const blocks = await w.d.app.db('content_index').where({ workspace_id: w.ws.id }).groupBy('sitemap_block').select('sitemap_block').count({ n: '*' });
    expect(Math.max(...blocks.map((b) => Number(b.n)))).toBeLessThanOrEqual(512);
  });
});
