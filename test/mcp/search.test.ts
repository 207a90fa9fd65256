import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';

describe(`MCP list_articles with query (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('searches the published articles like GET /articles?q=, best first; drafts are not searched', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    try {
      await generateBlogKey(d.app, ws);
      const fresh = await getWorkspace(d.app, ws.id);
      for (const [title, body] of [['Cold brew coffee', '## Beans\n\nCoarse grind.'], ['Tea mornings', '## Mornings\n\nSome drink coffee.'], ['京都の喫茶店', '## 珈琲\n\n古い喫茶店。']]) {
        await publishArticle(d.app, fresh, (await seedArticle(d.app, fresh, { title, bodyMarkdown: body })).id);
      }
      await seedArticle(d.app, fresh, { title: 'Draft about coffee' });
      const agent = await connect(d, await key(['read']));

      const found = await agent.call('list_articles', { query: 'coffee' });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent!.articles as Array<{ title: string }>).map((a) => a.title)).toEqual(['Cold brew coffee', 'Tea mornings']);
      expect(found.structuredContent).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(found.text).toContain('Published articles matching "coffee", best first, 1-2 of 2');

      const page = await agent.call('list_articles', { query: 'coffee', limit: 1, offset: 1 });
      expect((page.structuredContent!.articles as Array<{ title: string }>).map((a) => a.title)).toEqual(['Tea mornings']);
      const japanese = await agent.call('list_articles', { query: '喫茶店' });
      expect((japanese.structuredContent!.articles as Array<{ title: string }>).map((a) => a.title)).toEqual(['京都の喫茶店']);

      expect((await agent.call('list_articles', { query: 'coffee', status: 'draft' })).text).toMatch(/query searches the published articles/);
      expect((await agent.call('list_articles', { query: '   ' })).isError).toBe(true);
      expect((await agent.call('list_articles', { query: '!!!' })).text).toMatch(/query parameter must contain at least one letter/);
      const { tools } = await agent.listTools();
      const list = tools.find((t) => t.name === 'list_articles')!;
      expect(list.inputSchema.properties).toHaveProperty('query.maxLength', 200);
    } finally {
      await d.stop();
    }
  });
});
