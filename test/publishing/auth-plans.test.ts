import { describe, expect, it } from 'vitest';
import { createApiKey, resolveApiKey } from '../../src/auth/api-keys.js';
import { lookupBlogKey } from '../../src/auth/blog-keys.js';
import { resolveOAuthAccessToken } from '../../src/oauth/resolve.js';
import { PG_URL } from '../helpers/env.js';
import { datedDrafts, planWorkspace, statementsOf, wideStatements } from '../helpers/plans.js';
import { seedUser } from '../helpers/seed.js';
import { approve, exchange, mcp, registerClient, sessionFor } from '../oauth/flow.js';

// Looking up the key or token a request presents, on a deployed SQLite file (no planner
// statistics): a blog key, an API key and an OAuth access token, each by its hash, directly and
// on a real request. Every statement sent is EXPLAINed as sent (helpers/plans.ts).

const BIG = ['articles', 'publications', 'blog_keys', 'api_keys', 'oauth_tokens', 'oauth_connections', 'oauth_clients', 'oauth_codes', 'oauth_requests', 'sessions', 'users', 'memberships'];

describe.skipIf(PG_URL)('key and token lookups read by index on SQLite without statistics', () => {
  const fixture = planWorkspace(async (app, ws) => {
    await datedDrafts(app, ws, 300);
  });

  it('a blog key, an API key and an OAuth access token', { timeout: 60_000 }, async () => {
    const f = fixture();
    const app = f.d.app;
    const d = f.d;
    const user = await seedUser(app, f.ws, 'admin');
    const apiKey = await createApiKey(app, { workspaceId: f.ws.id, userId: user.id, name: 'plans', scopes: ['read'] });
    const client = await registerClient(d);
    const pair = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client, { workspaceId: f.ws.id }));
    const sent = await statementsOf(app.db, async () => {
      expect(await lookupBlogKey(app, f.key)).toBeDefined();
      expect(await resolveApiKey(app, apiKey.key)).not.toBeNull();
      expect(await resolveOAuthAccessToken(app, pair.access_token)).not.toBeNull();
      expect((await f.api('/settings')).status).toBeLessThan(500);
      expect((await fetch(`${d.url}/api/v1/workspaces/${f.ws.id}/api-keys`, { headers: { Authorization: `Bearer ${apiKey.key}` } })).status).toBeLessThan(500);
      expect((await mcp(d, pair.access_token)).status).toBe(200);
    });
    expect(await wideStatements(app.db, sent, BIG)).toEqual([]);
  });
});
