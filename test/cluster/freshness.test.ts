import { beforeAll, describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey, regenerateBlogKey, revokeBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { type Cluster, clusterSupported, startCluster } from '../helpers/cluster.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc, toolCall } from '../mcp/helpers.js';

// Three daemons on one PostgreSQL: a change that returned on daemon A is what B and C answer
// from the very next request on, whatever they had cached.
describe.skipIf(!clusterSupported)('freshness across three daemons on one PostgreSQL', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ jobs: false });
  });

  /** A workspace with a blog key, created on A, and a GET on a given daemon. */
  async function site() {
    const [a] = c.daemons;
    const ws = await seedWorkspace(a.app);
    let key = (await generateBlogKey(a.app, ws)).key;
    const get = (i: number, path: string, k = key) => fetch(`${c.daemons[i].url}/api/v1/content${path}`, { headers: { Authorization: `Bearer ${k}` } });
    const json = async (i: number, path: string) => {
      const res = await get(i, path);
      expect(res.status, `${path} on daemon ${i}`).toBe(200);
      return (await res.json()).data;
    };
    return { ws, get, json, key: () => key, setKey: (k: string) => (key = k) };
  }

  it('publish, update and unpublish on A are answered by B and C on their next request (caches warmed first)', async () => {
    const [a] = c.daemons;
    const s = await site();
    const art = await seedArticle(a.app, s.ws, { title: 'Spread one' });
    for (const i of [1, 2]) {
      expect((await s.json(i, '/articles')).total).toBe(0);
      expect((await s.get(i, `/articles/${art.slug}`)).status).toBe(404);
      await s.json(i, '/sitemap');
    }

    await publishArticle(a.app, s.ws, art.id);
    for (const i of [1, 2]) {
      expect((await s.json(i, '/articles')).articles.map((x: any) => x.id)).toEqual([art.id]);
      expect((await s.json(i, `/articles/${art.slug}`)).title).toBe('Spread one');
      expect((await s.json(i, '/sitemap')).articles).toHaveLength(1);
    }

    await updateArticle(a.app, s.ws, art.id, { title: 'Spread two' });
    await publishArticle(a.app, s.ws, art.id);
    for (const i of [1, 2]) expect((await s.json(i, `/articles/${art.slug}`)).title).toBe('Spread two');

    await unpublishArticle(a.app, s.ws, art.id);
    for (const i of [1, 2]) {
      expect((await s.get(i, `/articles/${art.slug}`)).status).toBe(404);
      expect((await s.json(i, '/articles')).total).toBe(0);
      expect((await s.json(i, '/sitemap')).articles).toEqual([]);
    }
  });

  it('a regenerated blog key: the old one is refused and the new one served by every daemon at once; a revoked one too', async () => {
    const [a, b] = c.daemons;
    const s = await site();
    for (const i of [0, 1, 2]) expect((await s.get(i, '/articles')).status).toBe(200);
    const old = s.key();

    s.setKey((await regenerateBlogKey(b.app, s.ws)).key); // on B this time
    for (const i of [0, 1, 2]) {
      const refused = await s.get(i, '/articles', old);
      expect(refused.status, `old key on daemon ${i}`).toBe(401);
      expect((await refused.json()).error).toEqual({ code: 'invalid_key', message: 'Invalid blog key' });
      expect((await s.get(i, '/articles')).status, `new key on daemon ${i}`).toBe(200);
    }

    await revokeBlogKey(a.app, s.ws);
    for (const i of [0, 1, 2]) expect((await s.get(i, '/articles')).status, `revoked key on daemon ${i}`).toBe(401);

    // A key generated on C after B and A looked it up and found it unknown: served at once.
    s.setKey((await generateBlogKey(c.daemons[2].app, s.ws)).key);
    for (const i of [0, 1, 2]) expect((await s.get(i, '/articles')).status, `generated key on daemon ${i}`).toBe(200);
  });

  it('a revoked API key is refused by the next MCP call on every daemon', async () => {
    const [a, b] = c.daemons;
    const ws = await seedWorkspace(a.app);
    const admin = await seedUser(a.app, ws, 'admin');
    const { id, key } = await createApiKey(a.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read'] });
    const auth = { Authorization: `Bearer ${key}` };
    for (const d of c.daemons) expect((await rpc(d, toolCall('get_site_profile'), auth)).status).toBe(200);
    await revokeApiKey(b.app, ws.id, id);
    for (const d of c.daemons) expect((await rpc(d, toolCall('get_site_profile'), auth)).status).toBe(401);
  });

  it('readers spread round-robin over the daemons right after each publish all see it', async () => {
    const [a] = c.daemons;
    const s = await site();
    const key = s.key();
    for (let round = 1; round <= 4; round++) {
      const art = await seedArticle(a.app, s.ws, { title: `Round ${round}` });
      await publishArticle(c.daemons[round % 3].app, s.ws, art.id);
      const totals = await Promise.all(
        Array.from({ length: 30 }, async () => (await (await c.fetch('/api/v1/content/articles', { headers: { 'X-Api-Key': key } })).json()).data.total),
      );
      expect(new Set(totals)).toEqual(new Set([round]));
    }
  });
});
