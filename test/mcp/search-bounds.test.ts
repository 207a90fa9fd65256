import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { connect, workspaceWithAdmin } from './helpers.js';

// MCP searches (list_articles with a query, find_link_targets) take the daemon's search slots, the
// ones the content API's `q` takes: at most content.searchConcurrency at once per API key or OAuth
// connection; the rest wait up to content.searchWait, and a key with as many waiting as may run in
// a whole wait is refused at once with a tool error naming the wait.

describe(`MCP searches are bounded per key (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('past the bound a search waits or is refused as a tool error; another workspace is served meanwhile, and the waiting searches run once slots are free', { timeout: 30_000 }, async () => {
    // A long wait: nothing here is refused by the timer, only by the full queue.
    const { d, ws, admin } = await workspaceWithAdmin({ overrides: { 'content.searchConcurrency': 2, 'content.searchWait': '20s', 'database.poolMax': 8 } });
    try {
      await generateBlogKey(d.app, ws);
      const fresh = await getWorkspace(d.app, ws.id);
      await publishArticle(d.app, fresh, (await seedArticle(d.app, fresh, { title: 'Cold brew coffee', bodyMarkdown: '## Beans\n\nCoarse grind.' })).id);
      const mine = await createApiKey(d.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read'] });
      const agent = await connect(d, mine.key);

      const other = await seedWorkspace(d.app, { name: 'other.example' });
      const otherAdmin = await seedUser(d.app, other, 'admin');
      const { key: otherBlogKey } = await generateBlogKey(d.app, other);
      const otherArticle = await seedArticle(d.app, other, { title: 'Green tea', bodyMarkdown: '## Leaves\n\nSteep briefly.' });
      await publishArticle(d.app, await getWorkspace(d.app, other.id), otherArticle.id);
      const otherAgent = await connect(d, (await createApiKey(d.app, { workspaceId: other.id, userId: otherAdmin.id, name: 'other', scopes: ['read'] })).key);

      // Two searches of this key in flight: the daemon's own slots, held until released.
      const releases: Array<() => void> = [];
      const held = Array.from({ length: 2 }, () => d.app.searches.run(`mcp:${mine.id}`, () => new Promise<void>((resolve) => releases.push(resolve))));

      // Nine more at once: eight wait (four times the bound), the ninth is refused without waiting.
      const calls = Array.from({ length: 9 }, (_, i) =>
        i % 2 === 0 ? agent.call('list_articles', { query: 'coffee' }) : agent.call('find_link_targets', { topic: 'coffee' }),
      );
      const first = await Promise.race(calls);
      expect(first.isError).toBe(true);
      expect(first.text).toMatch(/^Too many searches at once with this key: at most 2 run at a time\. Retry in 20 s\.$/);

      // Meanwhile: this key's other reads, another workspace's agent (reads and searches) and content API.
      expect((await agent.call('list_articles', {})).isError).toBeFalsy();
      const otherList = await otherAgent.call('list_articles', { query: 'tea' });
      expect(otherList.isError).toBeFalsy();
      expect(otherList.structuredContent).toMatchObject({ total: 1 });
      expect((await otherAgent.call('get_article', { id: otherArticle.id })).isError).toBeFalsy();
      const headers = { Authorization: `Bearer ${otherBlogKey}` };
      expect((await fetch(`${d.url}/api/v1/content/articles?q=tea`, { headers })).status).toBe(200);
      expect((await fetch(`${d.url}/api/v1/content/articles/${otherArticle.slug}`, { headers })).status).toBe(200);

      // The held slots end: the eight waiting searches run and answer.
      for (const release of releases) release();
      await Promise.all(held);
      const answers = await Promise.all(calls);
      expect(answers.filter((a) => a.isError)).toHaveLength(1);
      for (const a of answers.filter((x) => !x.isError)) expect(a.text).toContain('Cold brew coffee');
    } finally {
      await d.stop();
    }
  });
});
