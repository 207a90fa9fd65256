import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listDrafts, publishMany } from '../../src/publishing/publish-many.js';
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
    const n = 520; // more than two sitemap blocks' worth, all below the new posts
    const files = Array.from({ length: n }, (_, i) => post(`old-${String(i).padStart(3, '0')}.md`, new Date(Date.UTC(2015, 0, 1) + i * 86_400_000)));
    const r = await w.cli(['articles', 'import', '--publish', ...files]);
    expect(r.code, r.stderr).toBe(0);
    const expected = [...newest, ...files.map((f) => f.replace('.md', '')).reverse()];
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
