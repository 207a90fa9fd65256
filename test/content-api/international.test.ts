import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { createArticle } from '../../src/publishing/create.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getUsage } from '../../src/workspaces/usage.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { connect, workspaceWithAdmin } from '../mcp/helpers.js';
import { tempDir } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/intl');
const nfd = (s: string) => s.normalize('NFD');

/** Title (NFC) -> the slug it must get: explicit ones from the front matter, the rest derived. */
// An import takes a post's slug from its front matter, else its file name (as Hugo does: URLs
// must not move; docs/importing.md). Slugs derived from titles are made by `svc articles add`.
const SLUGS: Record<string, string> = {
  京都の喫茶店めぐり: 'ja-kyoto-cafes', // file name
  'がっこう ガイド': 'がっこう-ガイド', // explicit
  '서울 맛집 가이드': 'ko-seoul-food', // file name
  '한글 배우기': '한글-배우기', // explicit, imported from a file saved in NFD
  'Le café crème à Paris': 'fr-cafe-creme', // file name
  'La crème brûlée de grand-mère': 'crème-brûlée', // explicit "Crème-Brûlée": lower case, accents kept
};
const DERIVED: Record<string, string> = {
  京都の喫茶店めぐり: '京都の喫茶店めぐり',
  'がっこう ガイド': 'がっこう-ガイド',
  '서울 맛집 가이드': '서울-맛집-가이드',
  [nfd('한글 배우기')]: '한글-배우기', // a title typed in NFD gives the NFC slug
  'Le café crème à Paris': 'le-cafe-creme-a-paris',
};

/** A url a strict client accepts: absolute, ASCII only, already in the form URL parsing gives. */
function expectValidUrl(url: string, pathname: string): void {
  expect(url).toMatch(/^https:\/\/[\x21-\x7e]+$/);
  const parsed = new URL(url);
  expect(parsed.href).toBe(url);
  expect(parsed.hostname).toBe(new URL('https://ブログ.example').hostname); // the host in punycode
  expect(decodeURIComponent(parsed.pathname)).toBe(pathname);
}

/** The display column at which each value of a table line starts (values are separated by 2+ spaces). */
function columnStarts(line: string): number[] {
  const starts: number[] = [];
  let from = 0;
  for (const value of line.trim().split(/ {2,}/)) {
    const at = line.indexOf(value, from);
    starts.push(stringWidth(line.slice(0, at)));
    from = at + value.length;
  }
  return starts;
}

describe('an international corpus (issue 13): Japanese, Korean and French', () => {
  it('imports with explicit and derived slugs; every article is found by its percent-encoded slug in NFC and NFD; urls and the sitemap are valid absolute URLs', async () => {
    const f = await contentFixture({ jobs: false, siteUrl: 'https://ブログ.example/記事' });
    const cli = (args: string[]) => runCli([...args, '--workspace', f.ws.name], { env: f.d.env, cwd: dir });
    const dir = tempDir();
    for (const file of readdirSync(FIXTURES)) copyFileSync(path.join(FIXTURES, file), path.join(dir, file));
    writeFileSync(path.join(dir, 'ko-learn-hangul.md'), nfd(readFileSync(path.join(FIXTURES, 'ko-learn-hangul.md'), 'utf8')));

    const imported = await cli(['articles', 'import', ...readdirSync(dir).sort(), '--json']);
    expect(imported.stderr).toBe('');
    const articles = imported.json<{ imported: Array<{ id: string; title: string; slug: string }> }>().imported;
    expect(Object.fromEntries(articles.map((a) => [a.title.normalize('NFC'), a.slug]))).toEqual(SLUGS);
    for (const a of articles) expect(a.slug, 'stored in NFC').toBe(a.slug.normalize('NFC'));
    // Derived from the title, in another workspace (the imported ones hold these titles' slugs here).
    const other = await contentFixture({ jobs: false });
    for (const [title, slug] of Object.entries(DERIVED)) {
      const added = await runCli(['articles', 'add', '--title', title, '--body', 'x', '--workspace', other.ws.name, '--json'], { env: other.d.env, cwd: dir });
      expect(added.json().slug, title).toBe(slug);
    }

    // Named by the NFD spelling of its slug, as a Mac keyboard or a copied link may give it.
    for (const a of articles) expect((await cli(['articles', 'publish', nfd(a.slug), '--json'])).code).toBe(0);

    for (const a of articles) {
      for (const spelling of [a.slug, nfd(a.slug), a.slug.toUpperCase()]) {
        const res = await f.api(`/articles/${encodeURIComponent(spelling)}`);
        expect(res.status, `${a.slug} as ${JSON.stringify(spelling)}`).toBe(200);
        const { data } = await res.json();
        expect(data).toMatchObject({ id: a.id, slug: a.slug });
        expectValidUrl(data.url, `/記事/blog/${a.slug}`);
        expect(JSON.parse(data.schemaJsonLd).mainEntityOfPage['@id']).toBe(data.url);
      }
    }

    const sitemap = (await f.json('/sitemap')).data;
    expect(sitemap.articles.map((e: { slug: string }) => e.slug).sort()).toEqual(Object.values(SLUGS).sort());
    for (const entry of sitemap.articles) expectValidUrl(entry.url, `/記事/blog/${entry.slug}`);

    // Tags are derived like slugs, so the NFD keywords of the Korean file share tags with the NFC ones.
    const tags = (await f.json('/tags')).data as Array<{ slug: string; count: number }>;
    expect(tags.find((t) => t.slug === '서울')?.count).toBe(2);
    expect(tags.find((t) => t.slug === '京都')?.count).toBe(2);
    expect(tags.find((t) => t.slug === 'paris')?.count).toBe(2);
    expect(tags.find((t) => t.slug === 'oeuvre-dart')).toBeDefined();
    for (const t of tags) expect(t.slug).toBe(t.slug.normalize('NFC'));
    expect((await f.json(`/articles?tag=${encodeURIComponent(nfd('서울'))}`)).data.total).toBe(2);
    expect((await f.json(`/articles?tag=${encodeURIComponent('京都')}&category=GUIDES`)).data.total).toBe(1);

    // The terminal table lines up by display width: wide CJK, combining accents and ASCII alike.
    const list = await cli(['articles', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n').slice(0, -1); // the last line is the count
    expect(lines).toHaveLength(articles.length + 1);
    const header = columnStarts(lines[0]);
    expect(header).toHaveLength(6);
    for (const line of lines.slice(1)) expect(columnStarts(line), line).toEqual(header);
  });

  it('finds a slug stored in NFD by an earlier version in any spelling, and never hands out an equivalent one', async () => {
    const f = await contentFixture({ jobs: false });
    const legacy = nfd('한국어-가이드');
    const a = await f.publish({ title: 'Korean guide' });
    // What an earlier version stored for a Hangul title: the slug decomposed into jamo.
    await f.d.app.db('articles').where({ id: a.id }).update({ slug: legacy });
    await publishArticle(f.d.app, f.ws, a.id);
    for (const spelling of ['한국어-가이드', legacy]) {
      const { data } = await f.json(`/articles/${encodeURIComponent(spelling)}`);
      expect(data.slug, 'served as stored: never renamed').toBe(legacy);
    }
    const cli = (args: string[]) => runCli([...args, '--workspace', f.ws.name], { env: f.d.env, cwd: f.d.dir });
    expect((await cli(['articles', 'show', '한국어-가이드', '--json'])).json().id).toBe(a.id);
    const taken = await cli(['articles', 'add', '--title', 'Another', '--slug', '한국어-가이드']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(`error: The slug "한국어-가이드" is already used by another article in workspace ${f.ws.name}\n`);
    const derived = await cli(['articles', 'add', '--title', '한국어 가이드', '--json']);
    expect(derived.json().slug).toBe('한국어-가이드-2');
  });

  it('answers a slug that cannot exist with 404 and a filter that is no slug with an empty page, on every database', async () => {
    const f = await contentFixture({ jobs: false });
    await f.publish({ title: 'Hello', focusKeyword: 'hello' });
    for (const bad of ['a%00b', 'a--b', '%E2%98%95', 'a%20b', '-a']) {
      const res = await f.api(`/articles/${bad}`);
      expect(res.status, bad).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    }
    for (const query of ['tag=%00', 'category=a%00', 'tag=hello%20world', 'tag=', 'category=guides&tag=%E2%98%95']) {
      expect((await f.json(`/articles?${query}`)).data, query).toEqual({ articles: [], total: 0, page: 0, limit: 10 });
    }
    expect((await f.json('/articles?tag=HELLO')).data.total).toBe(1);
  });

  it('an agent gives and finds slugs in any normalisation over MCP, and gets resource URIs that are valid URIs', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const agent = await connect(d, await key());
    const created = await agent.call('create_article', { title: '韓国料理', slug: nfd('한국-요리'), bodyMarkdown: '## 김치\n\n맛있어요.' });
    expect(created.isError).toBeFalsy();
    expect(created.text).toContain('(slug: 한국-요리, id: ');
    const found = await agent.call('get_article', { slug: nfd('한국-요리') });
    expect(found.isError, found.text).toBeFalsy();
    expect(found.text).toContain('한국-요리');
    const published = await agent.call('publish_article', { slug: '한국-요리' });
    expect(published.isError, published.text).toBeFalsy();
    const { resources } = await agent.listResources();
    expect(resources.map((r) => r.uri)).toEqual([`article://${encodeURIComponent('한국-요리')}`]);
    const read = await agent.readResource({ uri: resources[0].uri });
    expect((read.contents[0] as { text: string }).text).toContain('slug: 한국-요리');
  });

  it('changes a slug only when asked, and the live URL only when published again', async () => {
    const f = await contentFixture({ jobs: false });
    const cli = (args: string[]) => runCli([...args, '--workspace', f.ws.name], { env: f.d.env, cwd: f.d.dir });
    await f.publish({ title: 'Kyoto', slug: 'kyoto' });
    expect((await cli(['articles', 'edit', 'kyoto', '--title', '京都のガイド'])).code).toBe(0);
    expect((await f.json('/articles/kyoto')).data.slug, 'a new title never renames the slug').toBe('kyoto');
    const edit = await cli(['articles', 'edit', 'kyoto', '--slug', '京都']);
    expect(edit.stdout).toBe('Updated 京都 (publish again to update the live copy)\n');
    expect(edit.stderr).toContain('Note: the slug changes from "kyoto" to "京都" when you publish again.');
    expect((await f.api('/articles/kyoto')).status, 'the live copy keeps its URL until published').toBe(200);
    expect((await cli(['articles', 'publish', '京都'])).code).toBe(0);
    expect((await f.api('/articles/kyoto')).status).toBe(404);
    const { data } = await f.json(`/articles/${encodeURIComponent('京都')}`);
    expect(data.url).toBe(`https://example.com/blog/${encodeURIComponent('京都')}`);
    expect((await f.json('/sitemap')).data.articles.map((e: { slug: string }) => e.slug)).toEqual(['京都']);
  });

  it('articles with one title created at the same moment all get their own slug (agents over MCP and the service the CLI calls)', async () => {
    const { d, ws, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    const agent = await connect(d, await key());
    const title = '京都 ガイド';
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => agent.call('create_article', { title, bodyMarkdown: 'x', allowDuplicate: true })),
      ...Array.from({ length: 6 }, () => createArticle(d.app, ws, { title, bodyMarkdown: 'x' }).then((r) => ({ isError: false, text: `(slug: ${r.article.slug},` }))),
    ]);
    for (const r of results) expect(r.isError, r.text).toBeFalsy();
    const slugs = results.map((r) => /\(slug: ([^,]+),/.exec(r.text)?.[1]);
    expect(new Set(slugs).size).toBe(12);
    expect(slugs.sort()).toEqual(['京都-ガイド', ...Array.from({ length: 11 }, (_, i) => `京都-ガイド-${i + 2}`)].sort());
    const usage = await getUsage(d.app, await getWorkspace(d.app, ws.id));
    expect(usage.find((u) => u.kind === 'articles')?.used, 'one credit per article the agents created').toBe(6);
  });
});
