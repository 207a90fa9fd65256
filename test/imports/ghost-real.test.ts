import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/lib/markdown.js';
import { importWorld } from './world.js';

// A real Ghost 4.1 export (Ghost's own starter posts, from TryGhost/Ghost's test fixtures), kept
// under test/fixtures/ with its source and licence (SOURCES.md).
const FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ghost-real/ghost-4.1-export.json');
const EXPORT = JSON.parse(readFileSync(FILE, 'utf8'));
const POSTS: Array<Record<string, any>> = EXPORT.db[0].data.posts;
const ghost = (slug: string) => POSTS.find((p) => p.slug === slug)!;
const SITE = 'https://example.com';
const SELL_HERE = `${SITE}/blog/sell`;

// What a reader sees of a body: its text, headings, links and images, whatever the markup around them.
const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const plain = (html: string) => decode(html.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
const seen = (html: string) => {
  // A link to another post of the export points where svc serves it (docs/importing.md, "Links between posts").
  const h = html.replaceAll('__GHOST_URL__/sell/', SELL_HERE).replaceAll('__GHOST_URL__', SITE);
  return {
    text: plain(h),
    headings: [...h.matchAll(/<h([1-6])[^>]*>([\s\S]*?)<\/h\1>/g)].map((m) => `h${m[1]} ${plain(m[2])}`),
    links: [...h.matchAll(/<a href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map((m) => [decode(m[1]), plain(m[2])]),
    images: [...h.matchAll(/<img src="([^"]*)"/g)].map((m) => decode(m[1])),
  };
};

async function importExport(file: string) {
  const w = await importWorld();
  writeFileSync(path.join(w.d.dir, 'ghost-export.json'), file);
  const r = await w.cli(['articles', 'import', '--publish', 'ghost-export.json', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return { w, report: r.json() };
}

/** Every post and page of the export ends imported, already there (named), skipped (named) or failed (named). */
function accountedFor(report: any) {
  const named = (note: RegExp, kind: string) =>
    report.notes.filter((n: string) => note.test(n)).flatMap((n: string) => [...n.matchAll(new RegExp(`${kind} "([^"]+)"`, 'g'))].map((m) => m[1]));
  const pages = named(/^Skipped \d+: Ghost pages/, 'page');
  const already = named(/^Skipped \d+: posts already imported/, 'post');
  const imported = report.imported.map((a: { slug: string }) => a.slug);
  const failed = report.failed.map((f: { source: string }) => f.source.match(/"([^"]+)"/)?.[1]);
  expect(already).toHaveLength(report.counts.already);
  expect(report.counts.imported + report.counts.already + report.counts.failed + pages.length).toBe(POSTS.length);
  expect([...imported, ...already, ...failed, ...pages].sort()).toEqual(POSTS.map((p) => p.slug).sort());
}

describe("a real Ghost export (Ghost 4.1's starter posts)", () => {
  it('accounts for every post, keeps every slug, keeps the paid post a draft with its divider, and bodies read as Ghost rendered them', async () => {
    const { w, report } = await importExport(readFileSync(FILE, 'utf8'));
    accountedFor(report);
    expect(report.counts).toMatchObject({ imported: 3, already: 0, failed: 0, published: 2, drafts: 1 });
    expect(report.imported.map((a: { slug: string }) => a.slug)).toEqual(['integrations', 'sell', 'portal']);
    expect(report.moved).toEqual([]);
    expect(report.notes).toContain('Skipped 1: Ghost pages (svc imports posts): ghost-export.json: page "privacy"');
    expect(report.notes).toContain(
      'Ghost posts for members or paid subscribers were imported as drafts, whole (svc has no members: published, they would be public; cut them at <!--members-only--> before publishing): ghost-export.json: post "sell"',
    );
    // The Zapier widget of a markdown card is a script: svc publishes none, and says so.
    expect(report.notes).toContain('Ghost posts with scripts (embedded widgets) lost them: svc publishes no scripts: ghost-export.json: post "integrations"');

    // The paid post ("visibility": "paid", with Ghost's <!--members-only--> divider) is not public.
    const list = (await w.api('/articles')).body.data.articles;
    expect(list.map((a: { slug: string }) => a.slug).sort()).toEqual(['integrations', 'portal']);
    expect((await w.api('/articles/sell')).status).toBe(404);
    expect(JSON.stringify(list)).not.toContain('Hold back some of the best bits');
    const sell = (await w.cli(['articles', 'show', 'sell', '--json'])).json();
    expect(sell.status).toBe('draft');
    // The divider stays where Ghost had it, so the person can cut the paid part before publishing.
    expect(sell.bodyMarkdown).toContain('<!--members-only-->');
    const [free, paid] = sell.bodyMarkdown.split('<!--members-only-->');
    expect(free).toContain("that's a good time to...");
    expect(paid).toContain('Hold back some of the best bits for paying members only!');
    expect(seen(renderHtml(sell.bodyMarkdown))).toEqual(seen(ghost('sell').html));

    for (const slug of ['integrations', 'portal']) {
      const a = (await w.api(`/articles/${slug}`)).body.data;
      const p = ghost(slug);
      expect(a).toMatchObject({ slug, title: p.title, author: 'Ghost', image: p.feature_image, publishedAt: p.published_at, metaDescription: p.custom_excerpt, tags: [{ slug: 'getting-started' }] });
      expect(seen(a.html)).toEqual(seen(p.html));
    }
    expect(seen((await w.api('/articles/portal')).body.data.html).links).toContainEqual([SELL_HERE, 'setting up premium subscriptions']);
    expect(report.notes).toContain(`Links between imported posts now point where svc serves them: ${SITE}/sell/ -> ${SELL_HERE}`);
    expect(seen((await w.api('/articles/integrations')).body.data.html).headings).toEqual(['h2 Zapier', 'h2 Custom integrations']);

    // The same export again: every post already there, none imported twice, still all accounted for.
    const again = await w.cli(['articles', 'import', '--publish', 'ghost-export.json', '--json']);
    expect(again.code, again.stderr).toBe(0);
    accountedFor(again.json());
    expect(again.json().counts).toMatchObject({ imported: 0, already: 3, failed: 0 });
  });

  it('renders the same posts from their Mobiledoc alone (an export without html) as Ghost rendered them: linked images, the paywall divider', async () => {
    const noHtml = structuredClone(EXPORT);
    for (const p of noHtml.db[0].data.posts) delete p.html;
    const { w, report } = await importExport(JSON.stringify(noHtml));
    accountedFor(report);
    expect(report.counts).toMatchObject({ imported: 3, failed: 0, published: 2, drafts: 1 });
    // Ghost's paywall card is the members-only divider, not a card that was left out.
    expect(report.notes.join('\n')).not.toContain('paywall');
    expect(report.notes).toContain('Ghost posts with scripts (embedded widgets) lost them: svc publishes no scripts: ghost-export.json: post "integrations"');
    const sell = (await w.cli(['articles', 'show', 'sell', '--json'])).json();
    expect(sell.bodyMarkdown.split('<!--members-only-->')).toHaveLength(2);
    expect(seen(renderHtml(sell.bodyMarkdown))).toEqual(seen(ghost('sell').html));
    for (const slug of ['integrations', 'portal']) expect(seen((await w.api(`/articles/${slug}`)).body.data.html)).toEqual(seen(ghost(slug).html));
  });
});
