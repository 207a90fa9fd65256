import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { type Cluster, clusterSupported, startCluster } from '../helpers/cluster.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { rpc, toolCall } from '../mcp/helpers.js';
import { callTool, exchange, getAuthorize, hidden, postConsent, registerClient, sessionFor, token } from '../oauth/flow.js';
import { pkce } from '../oauth/helpers.js';

// No session affinity: whichever daemon the proxy picks answers each step.
describe.skipIf(!clusterSupported)('agents across three daemons on one PostgreSQL', () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ jobs: false });
  });

  it('MCP: the SDK client initializes through the round-robin front and every later call lands on another daemon', async () => {
    const [a] = c.daemons;
    const ws = await seedWorkspace(a.app);
    const admin = await seedUser(a.app, ws, 'admin');
    const art = await seedArticle(a.app, ws, { title: 'Seen everywhere' });
    const { key } = await createApiKey(a.app, { workspaceId: ws.id, userId: admin.id, name: 'agent', scopes: ['read', 'content'] });
    const client = new Client({ name: 'cluster-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${c.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('get_article');
      for (let i = 0; i < 6; i++) {
        const got = await client.callTool({ name: 'get_article', arguments: { id: art.id } });
        expect(got.isError ?? false).toBe(false);
        expect(JSON.stringify(got.content)).toContain('Seen everywhere');
      }
      // A write on one daemon is read back through another.
      const made = await client.callTool({ name: 'create_article', arguments: { title: 'Made by the agent', contentType: 'GUIDE', bodyMarkdown: '## Hi\n\nThere.' } });
      expect(made.isError ?? false).toBe(false);
      const listed = await client.callTool({ name: 'list_articles', arguments: {} });
      expect(JSON.stringify(listed.content)).toContain('Made by the agent');
    } finally {
      await client.close();
    }
    // Raw calls without initialize, one per daemon.
    for (const d of c.daemons) expect((await rpc(d, toolCall('get_site_profile'), { Authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('OAuth: register on A, authorize on B, consent on C, token on A, MCP on B and C, refresh on C, the grace of the old refresh token on A', async () => {
    const [a, b, third] = c.daemons;
    const ws = await seedWorkspace(a.app);
    const user = await seedUser(a.app, ws, 'admin');
    const resource = `${c.url}/api/mcp`;
    const client = await registerClient(a);
    const session = await sessionFor(b, user.id);
    const { verifier, challenge } = pkce();
    const redirectUri = client.redirect_uris[0];
    const { res, html } = await getAuthorize(b, session, {
      response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 'st', scope: 'read content', resource,
    });
    expect(res.status).toBe(200);
    const consent = await postConsent(third, session, { csrf: hidden(html, 'csrf')!, request: hidden(html, 'request')!, decision: 'approve', scope: ['read', 'content'], workspace: ws.id });
    expect(consent.status).toBe(303);
    const location = new URL(consent.headers.get('location')!);
    expect(location.searchParams.get('iss')).toBe(c.url);
    const code = { code: location.searchParams.get('code')!, verifier, redirectUri, location };
    const tokens = await exchange(a, client.client_id, code);
    for (const d of [b, third]) expect((await callTool(d, tokens.access_token, 'get_site_profile')).status).toBe(200);

    const refreshed = await token(third, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refreshed.status).toBe(200);
    const next = await refreshed.json();
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callTool(a, next.access_token, 'get_site_profile')).status).toBe(200);
    // Within 60 s of its rotation the previous refresh token still works, on any daemon (parallel refreshes).
    expect((await token(a, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })).status).toBe(200);

    // A revocation on one daemon is refused by the others on the next call.
    const revoke = await fetch(`${b.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: next.access_token, client_id: client.client_id }).toString(),
    });
    expect(revoke.status).toBe(200);
    for (const d of c.daemons) expect((await callTool(d, next.access_token, 'get_site_profile')).status).toBe(401);
  });
});
