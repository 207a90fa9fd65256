import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { updateWorkspace } from '../../src/workspaces/service.js';
import { setWebhook } from '../../src/webhooks/service.js';
import { afterFile } from '../helpers/cleanup.js';
import { TestClock } from '../helpers/clock.js';
import { seedArticle } from '../helpers/seed.js';
import { startReceiver } from '../webhooks/receiver.js';
import { connect, workspaceWithAdmin } from './helpers.js';

const GOOD_BODY = [
  'Cold brew coffee is coffee steeped in cold water for many hours. This guide shows how to make it at home.',
  '',
  '## Why cold brew coffee tastes smoother',
  '',
  'Less acid, more sweetness. ' + 'word '.repeat(160),
  '',
  '![A jar of cold brew coffee](https://example.com/jar.jpg)',
  '',
  '## How to make it',
  '',
  '### What you need',
  '',
  'A jar and a filter. See [our grinder guide](/blog/grinders). ' + 'word '.repeat(160),
].join('\n');

const goodArticle = {
  title: 'Cold brew coffee at home',
  slug: 'cold-brew-coffee-at-home',
  bodyMarkdown: GOOD_BODY,
  contentType: 'GUIDE',
  focusKeyword: 'cold brew coffee',
  secondaryKeywords: ['iced coffee'],
  metaTitle: 'Cold brew coffee at home: an easy guide',
  metaDescription: 'How to make cold brew coffee at home: the ratio, the grind, how long to steep it and how to keep it fresh for a week or more in the fridge.',
  targetLength: 300,
};

describe('MCP write tools', () => {
  it('create_article makes a draft, spends one articles credit, and site profile shows it', async () => {
    const { d, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    const agent = await connect(d, await key(['read', 'content']));
    const res = await agent.call('create_article', goodArticle);
    expect(res.isError).toBeFalsy();
    expect(res.text).toMatch(/^Created draft: "Cold brew coffee at home" \(slug: cold-brew-coffee-at-home, id: art_\w+\)\. 1 article credit spent\.$/);
    expect(res.structuredContent).toMatchObject({ published: false, article: { status: 'draft', contentType: 'GUIDE', focusKeyword: 'cold brew coffee' } });
    const got = await agent.call('get_article', { slug: 'cold-brew-coffee-at-home' });
    expect(got.structuredContent).toMatchObject({ secondaryKeywords: ['iced coffee'], targetLength: 300, bodyCharacters: [...GOOD_BODY].length });
    expect(got.text).toContain(GOOD_BODY);
    expect((await agent.call('get_site_profile')).text).toContain('\nArticles: 1/10\n');
  });

  it('refuses bad input as a tool error and spends nothing', async () => {
    const { d, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key(['read', 'content']));
    const badSlug = await agent.call('create_article', { title: 'X', bodyMarkdown: 'x', slug: 'Not A Slug' });
    expect(badSlug).toMatchObject({ isError: true, text: expect.stringMatching(/^Invalid article: slug: must be letters, marks and digits of any script joined by single dashes/) });
    const badType = await agent.call('create_article', { title: 'X', bodyMarkdown: 'x', contentType: 'ESSAY' });
    expect(badType).toMatchObject({ isError: true, text: 'Invalid article: contentType: content type must be one of BLOG_POST, GUIDE, HOW_TO, LISTICLE, COMPARISON' });
    const noTitle = await agent.call('create_article', { bodyMarkdown: 'no heading here' });
    expect(noTitle).toMatchObject({ isError: true, text: 'Invalid article: a title is required (pass a title, or start the markdown with "# Title")' });
    const wrongTypes = await agent.call('create_article', { title: 42, bodyMarkdown: ['x'] });
    expect(wrongTypes).toMatchObject({ isError: true, text: 'Invalid article: title: must be text, not a number; bodyMarkdown: must be text, not an array' });
    expect((await agent.call('get_site_profile')).text).toContain('\nArticles: 0/10\n');
    expect((await agent.call('list_articles')).structuredContent).toMatchObject({ total: 0 });
  });

  it('answers a tool error naming the allowance when article credits run out', async () => {
    const { d, ws, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    await updateWorkspace(d.app, ws.id, { allowanceArticles: 1 });
    const agent = await connect(d, await key(['read', 'content']));
    expect((await agent.call('create_article', { title: 'One', bodyMarkdown: 'x' })).isError).toBeFalsy();
    const second = await agent.call('create_article', { title: 'Two', bodyMarkdown: 'x' });
    expect(second.isError).toBe(true);
    expect(second.text).toMatch(/used all 1 articles credits of its monthly allowance/);
    expect((await agent.call('list_articles')).structuredContent).toMatchObject({ total: 1 });
  });

  it('create_article honours auto-publish', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    await updateWorkspace(d.app, ws.id, { autoPublish: true });
    const agent = await connect(d, await key(['read', 'content']));
    const res = await agent.call('create_article', { title: 'Straight to the blog', bodyMarkdown: 'Hello.' });
    expect(res.text).toMatch(/^Created and published \(auto-publish is on\)/);
    expect(res.structuredContent).toMatchObject({ published: true, article: { status: 'published' } });
  });

  it('update_article changes only the given fields, by id or by slug', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const a = await seedArticle(d.app, ws, { title: 'Draft one', focusKeyword: 'tea' });
    const agent = await connect(d, await key(['read', 'content']));
    const byId = await agent.call('update_article', { id: a.id, newSlug: 'green-tea', metaDescription: 'About tea.' });
    expect(byId.text).toBe(`Updated "Draft one" (slug: green-tea, id: ${a.id}).`);
    // id and slug naming two articles (or a slug meant as the new one) is refused, not settled by the id.
    expect(await agent.call('update_article', { id: a.id, slug: 'black-tea', title: 'x' })).toMatchObject({
      isError: true,
      text: `id and slug name different articles: ${a.id} has the slug "green-tea", not "black-tea". Give only one of them (to change a slug, use update_article's newSlug)`,
    });
    expect(await agent.call('get_article', { id: a.id, slug: 'black-tea' })).toMatchObject({ isError: true, text: expect.stringContaining('id and slug name different articles') });
    expect(await agent.call('get_article', { id: a.id, slug: 'Green-Tea' })).toMatchObject({ structuredContent: { id: a.id } });
    const bySlug = await agent.call('update_article', { slug: 'green-tea', title: 'Green tea' });
    expect(bySlug.structuredContent).toMatchObject({ article: { id: a.id, title: 'Green tea', slug: 'green-tea', focusKeyword: 'tea' } });
    const got = await agent.call('get_article', { id: a.id });
    expect(got.structuredContent).toMatchObject({ metaDescription: 'About tea.' });
    expect(got.text).toContain(a.bodyMarkdown);
    const nothing = await agent.call('update_article', { id: a.id });
    expect(nothing).toMatchObject({ isError: true, text: 'Nothing to change: pass at least one field' });
    const missing = await agent.call('update_article', { id: 'art_nope', title: 'x' });
    expect(missing).toMatchObject({ isError: true, text: 'Article "art_nope" not found' });
    expect((await agent.call('get_site_profile')).text).toContain('\nArticles: 0/10\n');
  });

  it('audit_article scores the article, stores the score and spends one audit credit', async () => {
    const { d, ws, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    const agent = await connect(d, await key(['read', 'content']));
    const created = await agent.call('create_article', goodArticle);
    const id = (created.structuredContent as { article: { id: string } }).article.id;
    const good = await agent.call('audit_article', { id });
    expect(good.isError).toBeFalsy();
    expect(good.text).toMatch(/^SEO score 100\/100 for "Cold brew coffee at home" \(cold-brew-coffee-at-home\)\. Every check passed\. 1 audit credit spent\./);
    expect(good.structuredContent).toMatchObject({ seoScore: 100, stats: { h2: 2, h3: 1, images: 1, internalLinks: 1 } });

    const poor = await seedArticle(d.app, ws, { title: 'Notes', bodyMarkdown: '# Notes\n\nShort.\n\n#### Deep\n\n![](https://example.com/x.png)' });
    const bad = await agent.call('audit_article', { slug: poor.slug });
    const result = bad.structuredContent as { seoScore: number; checks: Array<{ id: string; passed: boolean; message: string }> };
    expect(result.seoScore).toBeLessThan(30);
    const failed = Object.fromEntries(result.checks.filter((c) => !c.passed).map((c) => [c.id, c.message]));
    expect(Object.keys(failed)).toEqual(
      expect.arrayContaining(['meta_description_length', 'focus_keyword', 'keyword_in_title', 'heading_structure', 'word_count', 'image_alt', 'links']),
    );
    expect(failed.heading_structure).toMatch(/heading level is skipped/);
    expect(bad.text).toContain('[FAIL] Image alt texts (10): 1 image has no alt text');
    expect((await agent.call('get_article', { id: poor.id })).structuredContent).toMatchObject({ seoScore: result.seoScore });
    expect((await agent.call('get_site_profile')).text).toContain('\nAudits: 2/50\n');
  });

  it('refuses an audit when audit credits run out, and a missing article spends nothing', async () => {
    const { d, ws, key } = await workspaceWithAdmin({ clock: TestClock.midMonth() });
    await updateWorkspace(d.app, ws.id, { allowanceAudits: 1 });
    const a = await seedArticle(d.app, ws);
    const agent = await connect(d, await key(['read', 'content']));
    expect((await agent.call('audit_article', { id: 'art_missing' })).text).toBe('Article "art_missing" not found');
    expect((await agent.call('audit_article', { id: a.id })).isError).toBeFalsy();
    const refused = await agent.call('audit_article', { id: a.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/used all 1 audits credits of its monthly allowance/);
  });
});

describe('MCP publishing tools', () => {
  it('publish_article and unpublish_article use the same service as the CLI', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const a = await seedArticle(d.app, ws, { title: 'Ship it' });
    const agent = await connect(d, await key(['read', 'publish']));
    const nowhere = await agent.call('publish_article', { id: a.id });
    expect(nowhere).toMatchObject({ isError: true, text: `Workspace ${ws.name} has nowhere to publish to` });
    const blog = await generateBlogKey(d.app, ws);
    const first = await agent.call('publish_article', { slug: a.slug });
    expect(first.text).toBe(`Published "Ship it" (${a.slug}) to headless (first publish). Live at https://example.com/blog/${a.slug}.`);
    const live = await fetch(`${d.url}/api/v1/content/articles/${a.slug}`, { headers: { Authorization: `Bearer ${blog.key}` } });
    expect(live.status).toBe(200);
    expect((await agent.call('publish_article', { id: a.id })).text).toContain('to headless (updated)');
    const down = await agent.call('unpublish_article', { id: a.id });
    expect(down.text).toBe(`Unpublished "Ship it" (${a.slug}) from headless; it is now a draft.`);
    expect((await fetch(`${d.url}/api/v1/content/articles/${a.slug}`, { headers: { Authorization: `Bearer ${blog.key}` } })).status).toBe(404);
    const again = await agent.call('unpublish_article', { id: a.id });
    expect(again).toMatchObject({ isError: true, text: `Article "${a.slug}" is not published` });
  });

  it("reports the webhook receiver's refusal on unpublish and keeps the article published", async () => {
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body = JSON.stringify({ error: 'cannot remove it now' });
        res.writeHead(req.headers['x-service-event'] === 'article.unpublished' ? 503 : 200, { 'Content-Type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    afterFile(() => new Promise<void>((r) => receiver.close(() => r())));
    const { d, ws, key } = await workspaceWithAdmin({ overrides: { 'mcp.publishWait': '200ms' } }); // no worker runs: the first attempt never comes
    await setWebhook(d.app, ws, { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
    const a = await seedArticle(d.app, ws, { title: 'Webhook post' });
    const agent = await connect(d, await key(['read', 'publish']));
    expect((await agent.call('publish_article', { id: a.id })).text).toContain('to webhook (first publish). The webhook delivery is still pending: not tried within 0.2s.');
    const refused = await agent.call('unpublish_article', { id: a.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^The webhook receiver did not confirm the unpublish: .*503.*The article stays published\.$/s);
    expect((await agent.call('get_article', { id: a.id })).structuredContent).toMatchObject({ status: 'published' });
  });

  it('forceNotify tells the receiver of an article that is not published here, as the CLI --force-notify does, and only the receiver', async () => {
    let refuse = false;
    const receiver = await startReceiver(() => (refuse ? { status: 503, body: { error: 'not now' } } : { status: 200 }));
    const { d, ws, key } = await workspaceWithAdmin();
    await setWebhook(d.app, ws, { url: receiver.url });
    const a = await seedArticle(d.app, ws, { title: 'Rolled back' });
    const agent = await connect(d, await key(['read', 'publish']));
    const schema = (await agent.listTools()).tools.find((t) => t.name === 'unpublish_article')!.inputSchema as { properties: Record<string, { type: string }> };
    expect(schema.properties.forceNotify).toMatchObject({ type: 'boolean' });

    expect(await agent.call('unpublish_article', { id: a.id })).toMatchObject({ isError: true, text: `Article "${a.slug}" is not published` });
    expect(receiver.received).toEqual([]);

    const told = await agent.call('unpublish_article', { id: a.id, forceNotify: true });
    expect(told.isError, told.text).toBeFalsy();
    expect(told.text).toBe(`Sent article.unpublished for "Rolled back" (${a.slug}) to the webhook receiver; it confirmed. It was not published here (draft), so nothing else changed.`);
    expect(told.structuredContent).toMatchObject({ notifiedOnly: true, removedFrom: [], article: { id: a.id, status: 'draft' } });
    expect(receiver.received.map((r) => [r.body.event, r.body.article.id])).toEqual([['article.unpublished', a.id]]);

    refuse = true;
    const refused = await agent.call('unpublish_article', { slug: a.slug, forceNotify: true });
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/^The webhook receiver did not confirm the unpublish: .*503/) });
    expect(receiver.received).toHaveLength(2);
    expect((await agent.call('get_article', { id: a.id })).structuredContent).toMatchObject({ status: 'draft' });
  });
});
