import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';

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
});
