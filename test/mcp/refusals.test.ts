import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { setMemberRole } from '../../src/accounts/members.js';
import { runCli } from '../helpers/cli.js';
import { seedArticle, seedUser } from '../helpers/seed.js';
import { connect, rpc, toolCall, workspaceWithAdmin } from './helpers.js';

const metadataUrl = (base: string) => `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`;
const invalidToken = (base: string) => `${metadataUrl(base)}, error="invalid_token", error_description="The access token is unknown, expired or revoked"`;

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(StreamableHTTPError);
  const e = err as StreamableHTTPError;
  const body = JSON.parse(e.message.replace(/^Streamable HTTP error: Error POSTing to endpoint: /, ''));
  return { status: e.code!, message: body.error.message };
}

describe('/api/mcp authentication', () => {
  it('answers 401 with WWW-Authenticate: error="invalid_token" only when a token was presented (RFC 6750 §3.1)', async () => {
    const { d } = await workspaceWithAdmin();
    for (const auth of [undefined, 'Basic abc', 'Bearer']) {
      const res = await rpc(d, toolCall('get_site_profile', {}, 'no-token'), auth ? { Authorization: auth } : {});
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(metadataUrl(d.url));
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: null, // refused on its headers: the body (and its id) is never read
        error: { code: -32000, message: 'Unauthorized: send a valid API key or OAuth access token as Authorization: Bearer <token>', data: { code: 'unauthorized' } },
      });
    }
    for (const auth of ['Bearer svc_api_unknownkey000000000000000000000000', 'bearer some-oauth-token', 'Bearer two parts']) {
      const res = await rpc(d, toolCall('get_site_profile', {}, 9), { Authorization: auth });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(invalidToken(d.url));
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Unauthorized: the API key or access token is unknown, expired or revoked', data: { code: 'invalid_token' } },
      });
    }
  });

  it('refuses a key revoked with the CLI on the very next call', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const value = await key(['read']);
    const agent = await connect(d, value);
    expect((await agent.call('get_site_profile')).isError).toBeFalsy();
    const list = await runCli(['api-keys', 'list', '--workspace', ws.id, '--json'], { env: d.env, cwd: d.dir });
    const [{ id }] = list.json<Array<{ id: string }>>();
    const revoked = await runCli(['api-keys', 'revoke', id, '--workspace', ws.id, '--yes'], { env: d.env, cwd: d.dir });
    expect(revoked.code).toBe(0);
    const err = await agent.callTool({ name: 'get_site_profile', arguments: {} }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
    const res = await rpc(d, toolCall('get_site_profile'), { Authorization: `Bearer ${value}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(invalidToken(d.url));
  });
});

describe('/api/mcp per-call checks', () => {
  it('refuses a member removed mid-connection (by the CLI, another process) with 403', async () => {
    const { d, ws, admin, key } = await workspaceWithAdmin();
    await seedUser(d.app, ws, 'admin'); // the removed admin is not the last one
    const agent = await connect(d, await key(['read']));
    expect((await agent.call('get_site_profile')).isError).toBeFalsy();
    const removed = await runCli(['members', 'remove', '--workspace', ws.id, '--email', admin.email, '--yes'], { env: d.env, cwd: d.dir });
    expect(removed.code).toBe(0);
    expect(await refusal(agent.callTool({ name: 'get_site_profile', arguments: {} }))).toEqual({ status: 403, message: 'You are no longer a member of this workspace' });
    expect(await refusal(agent.listTools())).toEqual({ status: 403, message: 'You are no longer a member of this workspace' });
  });

  it('refuses a lapsed subscription with 403 and works again once active', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const agent = await connect(d, await key(['read']));
    const set = (...args: string[]) => runCli(['workspaces', 'set', '--workspace', ws.id, ...args], { env: d.env, cwd: d.dir });
    expect((await set('--billing-status', 'past_due', '--grace-until', new Date(Date.now() + 86_400_000).toISOString())).code).toBe(0);
    expect((await agent.call('get_site_profile')).text).toContain('\nPlan: free (past_due)\n');
    expect((await set('--grace-until', new Date(Date.now() - 1000).toISOString())).code).toBe(0);
    expect(await refusal(agent.callTool({ name: 'get_site_profile', arguments: {} }))).toEqual({ status: 403, message: "This workspace's subscription has lapsed" });
    expect((await set('--billing-status', 'lapsed', '--grace-until', '')).code).toBe(0);
    const raw = await rpc(d, toolCall('list_articles', {}, 7), { Authorization: `Bearer ${await key(['read'])}` });
    expect(raw.status).toBe(403);
    expect(await raw.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: "This workspace's subscription has lapsed", data: { code: 'subscription_lapsed' } } });
    expect((await set('--billing-status', 'active')).code).toBe(0);
    expect((await agent.call('get_site_profile')).text).toContain('\nPlan: free (active)\n');
  });

  it('refuses a tool whose scope was not granted when it is used, with the exact text', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const a = await seedArticle(d.app, ws);
    const readOnly = await connect(d, await key(['read']));
    for (const [tool, args] of [['create_article', { title: 'x', bodyMarkdown: 'x' }], ['update_article', { id: a.id, title: 'y' }], ['audit_article', { id: a.id }]] as const) {
      expect(await readOnly.call(tool, args)).toMatchObject({ isError: true, text: 'This connection was not granted the `content` scope' });
    }
    for (const tool of ['publish_article', 'unpublish_article']) {
      expect(await readOnly.call(tool, { id: a.id })).toMatchObject({ isError: true, text: 'This connection was not granted the `publish` scope' });
    }
    const writeOnly = await connect(d, await key(['content']));
    for (const [tool, args] of [['get_site_profile', {}], ['list_articles', {}], ['get_article', { id: a.id }]] as const) {
      expect(await writeOnly.call(tool, args)).toMatchObject({ isError: true, text: 'This connection was not granted the `read` scope' });
    }
    // Nothing was spent or changed by the refused calls.
    expect((await readOnly.call('get_article', { id: a.id })).structuredContent).toMatchObject({ title: a.title, status: 'draft', seoScore: null });
  });

  it('refuses writes when the acting user is only a viewer, naming the role', async () => {
    const { d, ws, admin, key } = await workspaceWithAdmin();
    await seedUser(d.app, ws, 'admin');
    const agent = await connect(d, await key(['read', 'content', 'publish']));
    await setMemberRole(d.app, ws.id, admin.email, 'viewer');
    expect((await agent.call('list_articles')).isError).toBeFalsy();
    const refused = await agent.call('create_article', { title: 'x', bodyMarkdown: 'x' });
    expect(refused).toMatchObject({ isError: true, text: 'This needs the editor role; you are a viewer in this workspace' });
    expect((await agent.call('publish_article', { slug: 'x' })).text).toBe('This needs the editor role; you are a viewer in this workspace');
    await setMemberRole(d.app, ws.id, admin.email, 'editor');
    expect((await agent.call('create_article', { title: 'x', bodyMarkdown: 'x' })).isError).toBeFalsy();
  });

  it('answers 429 Too many MCP calls with Retry-After past the per-minute budget; GET does not count', async () => {
    const { d, key } = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': 3 } });
    const value = await key(['read']);
    const auth = { Authorization: `Bearer ${value}` };
    for (let i = 0; i < 5; i++) expect((await fetch(`${d.url}/api/mcp`, { headers: auth })).status).toBe(405);
    for (let i = 1; i <= 3; i++) expect((await rpc(d, toolCall('get_site_profile', {}, i), auth)).status).toBe(200);
    const limited = await rpc(d, toolCall('get_site_profile', {}, 4), auth);
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Refused before its body is read (nothing past the budget is parsed), so no id can be answered.
    expect(await limited.json()).toMatchObject({ id: null, error: { message: `Too many MCP calls: at most 3 per minute for this key or connection. Retry in ${retry} s.`, data: { code: 'rate_limited' } } });
    // Another key has its own budget.
    expect((await rpc(d, toolCall('get_site_profile'), { Authorization: `Bearer ${await key(['read'])}` })).status).toBe(200);
  });
});
