import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { createPreview, revokeArticlePreviews } from '../../src/publishing/previews.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import type { Clock } from '../../src/lib/clock.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';
import { runCli } from '../helpers/cli.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { contentFixture } from './fixture.js';

/** A clock the test sets: a preview and the publish after it happen at the same instant. */
class SetClock implements Clock {
  constructor(public ms = Date.now()) {}
  now(): Date {
    return new Date(this.ms);
  }
}

const BODY = '## Why\n\nBecause **drafts** matter.\n\n## FAQ\n\n### Does it work?\n\nYes.\n';

describe(`draft previews: GET /articles/{slug}?preview= (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  const clock = new SetClock();
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ clock, siteUrl: 'https://blog.example.com', jobs: false });
    await f.publish({ title: 'Older post', focusKeyword: 'Drafts', contentType: 'GUIDE' });
  });
  afterAll(() => f.d.stop());
  const ws = () => getWorkspace(f.d.app, f.ws.id);

  it('shows the draft to the blog key exactly as publishing it now would serve it, uncached and unindexed', async () => {
    const draft = await seedArticle(f.d.app, await ws(), { title: 'Unpublished thoughts', bodyMarkdown: BODY, focusKeyword: 'Drafts', contentType: 'GUIDE', author: 'Ada' });
    const grant = await createPreview(f.d.app, await ws(), draft.slug);
    expect(grant.token).toMatch(/^svc_preview_[0-9A-Za-z]{32}$/);
    expect(grant.url).toBe(`https://blog.example.com/blog/${draft.slug}?preview=${grant.token}`);
    expect(Date.parse(grant.expiresAt) - clock.ms).toBe(24 * 3_600_000);

    expect((await f.api(`/articles/${draft.slug}`)).status).toBe(404);
    const res = await f.api(`/articles/${draft.slug}?preview=${grant.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    expect(res.headers.get('etag')).toBeNull();
    const preview = (await res.json()) as any;
    expect(preview.data).toMatchObject({ id: draft.id, slug: draft.slug, title: 'Unpublished thoughts', author: 'Ada', published: true, url: `https://blog.example.com/blog/${draft.slug}` });
    expect(preview.data.html).toContain('<strong>drafts</strong>');
    expect(preview.data.relatedPosts.map((p: any) => p.headline)).toEqual(['Older post']);

    // Nothing of it entered lists, the sitemap, search or the cache.
    expect((await f.json('/articles')).data.articles.map((a: any) => a.slug)).not.toContain(draft.slug);
    expect(JSON.stringify((await f.json('/sitemap')).data)).not.toContain(draft.slug);
    expect((await f.json('/articles?q=unpublished')).data.total).toBe(0);
    expect((await f.api(`/articles/${draft.slug}`)).status).toBe(404);

    // Publishing at the same instant serves the very same Article.
    await publishArticle(f.d.app, await ws(), draft.id);
    expect((await f.json(`/articles/${draft.slug}`)).data).toEqual(preview.data);
  });

  it('shows unpublished changes of a published article, while the site keeps serving the published one', async () => {
    const a = await f.publish({ title: 'Live version', bodyMarkdown: '## Live\n\nOld words.' });
    await updateArticle(f.d.app, await ws(), a.id, { title: 'Edited version', bodyMarkdown: '## Edited\n\nNew words.' });
    const { token } = await createPreview(f.d.app, await ws(), a.id);
    const live = await f.json(`/articles/${a.slug}`);
    const preview = await f.json(`/articles/${a.slug}?preview=${token}`);
    expect(live.data.title).toBe('Live version');
    expect(preview.data).toMatchObject({ title: 'Edited version', publishedAt: live.data.publishedAt, outline: ['Edited'] });
    expect((await f.json(`/articles/${a.slug}`)).data.title).toBe('Live version');
    expect((await f.json('/articles?q=edited')).data.total).toBe(0);
  });

  it('refuses a token that expired, was revoked, is for another article or another site, or is malformed: 404', async () => {
    const a = await seedArticle(f.d.app, await ws(), { title: 'Secret plan' });
    const b = await seedArticle(f.d.app, await ws(), { title: 'Other draft' });
    const short = await createPreview(f.d.app, await ws(), a.id, { ttlMs: 60_000 });
    const revoked = await createPreview(f.d.app, await ws(), a.id);
    const other = await createPreview(f.d.app, await ws(), b.id);
    expect((await f.api(`/articles/${a.slug}?preview=${short.token}`)).status).toBe(200);

    expect(await revokeArticlePreviews(f.d.app, await ws(), a.slug)).toMatchObject({ revoked: 2 });
    expect((await f.api(`/articles/${a.slug}?preview=${revoked.token}`)).status).toBe(404);
    const fresh = await createPreview(f.d.app, await ws(), a.id, { ttlMs: 60_000 });
    expect((await f.api(`/articles/${a.slug}?preview=${fresh.token}`)).status).toBe(200);
    clock.ms += 60_000;
    const expired = await f.api(`/articles/${a.slug}?preview=${fresh.token}`);
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as any).error).toMatchObject({ code: 'not_found' });
    expect(expired.headers.get('x-robots-tag')).toBe('noindex');

    expect((await f.api(`/articles/${a.slug}?preview=${other.token}`)).status).toBe(404); // b's token at a's slug
    for (const bad of ['', 'nope', `${other.token}x`, 'svc_preview_' + '0'.repeat(32)]) {
      expect((await f.api(`/articles/${b.slug}?preview=${encodeURIComponent(bad)}`)).status, bad).toBe(404);
    }
    expect((await f.api(`/articles/${b.slug}?preview=${other.token}&preview=${other.token}`)).status).toBe(400);
    expect((await f.api(`/articles/${b.slug}?preview=${other.token}`, { key: null })).status).toBe(401);

    // The blog key of another workspace of the same installation, with a valid token of this one: nothing.
    const second = await seedWorkspace(f.d.app);
    const { key: secondKey } = await generateBlogKey(f.d.app, second);
    const res = await f.api(`/articles/${b.slug}?preview=${other.token}`, { key: secondKey });
    expect(res.status).toBe(404);
    expect((await f.api(`/articles/${b.slug}?preview=${other.token}`)).status).toBe(200);
  });

  it('svc articles preview prints the link and --revoke ends it (the CLI)', async () => {
    const draft = await seedArticle(f.d.app, await ws(), { title: 'Draft for the CLI' });
    const made = await runCli(['articles', 'preview', draft.slug, '--workspace', f.ws.name, '--expires-in', '2h', '--json'], f.cli);
    expect(made.code, made.stderr).toBe(0);
    const grant = JSON.parse(made.stdout);
    expect(grant).toMatchObject({ articleId: draft.id, slug: draft.slug, url: `https://blog.example.com/blog/${draft.slug}?preview=${grant.token}` });
    expect((await f.api(`/articles/${draft.slug}?preview=${grant.token}`)).status).toBe(200);
    const human = await runCli(['articles', 'preview', draft.id, '--workspace', f.ws.name], f.cli);
    expect(human.stdout).toMatch(/^Preview of draft-for-the-cli until .*\nhttps:\/\/blog\.example\.com\/blog\/draft-for-the-cli\?preview=svc_preview_/);
    const revoked = await runCli(['articles', 'preview', draft.slug, '--workspace', f.ws.name, '--revoke'], f.cli);
    expect(revoked.stdout.trim()).toBe('Revoked 2 preview links of draft-for-the-cli');
    expect((await f.api(`/articles/${draft.slug}?preview=${grant.token}`)).status).toBe(404);
    const bad = await runCli(['articles', 'preview', draft.slug, '--workspace', f.ws.name, '--expires-in', 'soon'], f.cli);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--expires-in takes a duration/);
  });
});
