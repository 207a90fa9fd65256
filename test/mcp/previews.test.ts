import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';
import { PREVIEWS_PER_ARTICLE } from '../../src/publishing/previews.js';

describe(`MCP preview_article (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('makes a preview link the site shows the draft with, needs `content`, and revokes', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    try {
      const { key: blogKey } = await generateBlogKey(d.app, ws);
      const draft = await seedArticle(d.app, ws, { title: 'Agent draft' });
      const reader = await connect(d, await key(['read']));
      const refused = await reader.call('preview_article', { slug: draft.slug });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/content/);

      const agent = await connect(d, await key(['read', 'content']));
      const made = await agent.call('preview_article', { id: draft.id, expiresInMinutes: 30 });
      expect(made.isError).toBeFalsy();
      const { token, expiresAt, url } = made.structuredContent as { token: string; expiresAt: string; url: string | null };
      expect(url).toContain(`?preview=${token}`);
      expect(made.text).toContain(url!);
      expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(29 * 60_000);
      expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
      const view = (t: string) => fetch(`${d.url}/api/v1/content/articles/${draft.slug}?preview=${t}`, { headers: { authorization: `Bearer ${blogKey}` } });
      expect((await view(token)).status).toBe(200);

      const revoked = await agent.call('preview_article', { slug: draft.slug, revoke: true });
      expect(revoked.text).toBe(`Revoked 1 preview link of ${draft.slug}.`);
      expect((await view(token)).status).toBe(404);
      expect((await agent.call('preview_article', { id: draft.id, expiresInMinutes: 0 })).isError).toBe(true);
    } finally {
      await d.stop();
    }
  });

  it(`an article keeps its ${PREVIEWS_PER_ARTICLE} newest preview links: one more ends the oldest, never the new one`, async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    try {
      const { key: blogKey } = await generateBlogKey(d.app, ws);
      const draft = await seedArticle(d.app, ws, { title: 'Previewed often' });
      const other = await seedArticle(d.app, ws, { title: 'Previewed once' });
      const agent = await connect(d, await key(['read', 'content']));
      const make = async (id: string) => ((await agent.call('preview_article', { id })).structuredContent as { token: string }).token;
      const kept = await make(other.id);
      const tokens: string[] = [];
      for (let i = 0; i < PREVIEWS_PER_ARTICLE + 5; i++) tokens.push(await make(draft.id));
      expect(Number((await d.app.db('content_previews').where({ article_id: draft.id }).count({ n: '*' }).first())!.n)).toBe(PREVIEWS_PER_ARTICLE);
      const view = (slug: string, t: string) => fetch(`${d.url}/api/v1/content/articles/${slug}?preview=${t}`, { headers: { authorization: `Bearer ${blogKey}` } }).then((r) => r.status);
      expect(await view(draft.slug, tokens[0])).toBe(404);
      expect(await view(draft.slug, tokens.at(-1)!)).toBe(200);
      expect(await view(draft.slug, tokens.at(-PREVIEWS_PER_ARTICLE)!)).toBe(200);
      expect(await view(other.slug, kept)).toBe(200);
    } finally {
      await d.stop();
    }
  });
});
