import { describe, expect, it } from 'vitest';
import { listApiKeys } from '../../src/auth/api-keys.js';
import { listConnections, revokeConnection } from '../../src/oauth/connections.js';
import { removeMember } from '../../src/accounts/members.js';
import { TestClock } from '../helpers/clock.js';
import { seedUser } from '../helpers/seed.js';
import { approve, exchange, registerClient, sessionFor, token } from '../oauth/flow.js';
import { rpc, toolCall, workspaceWithAdmin } from './helpers.js';

// RFC 6750 §3.1 on /api/mcp: a presented token that is expired or revoked gets
// error="invalid_token" (clients then refresh or re-authorize), and "last used" is recorded by
// one writer for API keys and OAuth connections, at most once a minute.

const challenge = (base: string) =>
  `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp", error="invalid_token", error_description="The access token is unknown, expired or revoked"`;

async function oauthDaemon() {
  const clock = new TestClock();
  const f = await workspaceWithAdmin({ clock });
  const s = await sessionFor(f.d, f.admin.id);
  const client = await registerClient(f.d);
  const tokens = await exchange(f.d, client.client_id, await approve(f.d, s, client, { scopes: ['read'] }));
  const call = (bearer: string, id: number | string = 1) => rpc(f.d, toolCall('get_site_profile', {}, id), { Authorization: `Bearer ${bearer}` });
  return { ...f, clock, client, tokens, call };
}

describe('/api/mcp: expired and revoked tokens', () => {
  it('an expired access token is a 401 with error="invalid_token" (id null: the body is not read); the refreshed one works', async () => {
    const { d, clock, client, tokens, call } = await oauthDaemon();
    expect((await call(tokens.access_token)).status).toBe(200);
    clock.advance(61 * 60_000); // access tokens last one hour
    const expired = await call(tokens.access_token, 'after-an-hour');
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe(challenge(d.url));
    expect(await expired.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Unauthorized: the API key or access token is unknown, expired or revoked', data: { code: 'invalid_token' } },
    });
    const refreshed = await token(d, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    expect(refreshed.status).toBe(200);
    expect((await call(((await refreshed.json()) as { access_token: string }).access_token)).status).toBe(200);
  });

  it('a revoked connection is a 401 with error="invalid_token"', async () => {
    const { d, ws, tokens, call } = await oauthDaemon();
    const [conn] = await listConnections(d.app, { workspaceId: ws.id });
    await revokeConnection(d.app, conn.id, 'test');
    const res = await call(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge(d.url));
  });
});

describe('/api/mcp: "last used" of keys and connections', () => {
  it('is recorded on use, kept for a minute whatever the traffic, and moved after it', async () => {
    const { d, ws, key, tokens, clock, call } = await oauthDaemon();
    const apiKey = await key(['read']);
    const lastUsed = async () => ({
      key: (await listApiKeys(d.app, ws.id))[0].lastUsedAt,
      connection: (await listConnections(d.app, { workspaceId: ws.id }))[0].lastUsedAt,
    });
    const useBoth = async (times: number) => {
      const answers = await Promise.all(Array.from({ length: times }, (_, i) => [call(apiKey, i), call(tokens.access_token, i)]).flat());
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    };
    clock.advance(61_000); // past the minute the connection was created (and first used) in
    const before = clock.now().getTime();
    await useBoth(1);
    const first = await lastUsed();
    for (const at of Object.values(first)) expect(Date.parse(at!)).toBeGreaterThanOrEqual(before);

    clock.advance(30_000);
    await useBoth(10);
    expect(await lastUsed()).toEqual(first);

    clock.advance(31_000);
    const moved = clock.now().getTime();
    await useBoth(10);
    const second = await lastUsed();
    for (const at of Object.values(second)) expect(Date.parse(at!)).toBeGreaterThanOrEqual(moved);
  });
});

describe('/api/mcp: every refusal of a POST answers the request id once the body is read', () => {
  it('415 and 403 membership echo the id; 403 origin, 401 and a spent budget (429) come before the body is read (id null); a batch gets one error (id null)', async () => {
    // The 415 and the 413 cost a call each (every POST is charged before its body is read): 3 in all.
    const { d, key } = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': 3 } });
    const auth = { Authorization: `Bearer ${await key(['read'])}` };
    const idsOf = async (res: Response) => {
      const body = await res.json();
      return Array.isArray(body) ? body.map((a: { id: unknown }) => a.id) : body.id;
    };
    const origin = await rpc(d, toolCall('get_site_profile', {}, 'o'), { ...auth, Origin: 'https://evil.example' });
    expect([origin.status, await idsOf(origin)]).toEqual([403, null]);
    const unauth = await rpc(d, [toolCall('get_site_profile', {}, 'a'), toolCall('list_articles', {}, 'b')], {});
    expect([unauth.status, await idsOf(unauth)]).toEqual([401, null]);
    const media = await rpc(d, JSON.stringify(toolCall('get_site_profile', {}, 'm')), { ...auth, 'Content-Type': 'text/plain' });
    expect([media.status, await idsOf(media)]).toEqual([415, 'm']);
    const huge = await rpc(d, toolCall('create_article', { title: 't', bodyMarkdown: 'x'.repeat(6 * 1024 * 1024) }, 'h'), auth);
    expect([huge.status, await idsOf(huge)]).toEqual([413, null]); // not read past the limit
    expect((await rpc(d, toolCall('get_site_profile', {}, 1), auth)).status).toBe(200);
    const limited = await rpc(d, toolCall('get_site_profile', {}, 'r'), auth);
    expect([limited.status, await idsOf(limited)]).toEqual([429, null]);

    const other = await workspaceWithAdmin();
    await seedUser(other.d.app, other.ws, 'admin');
    const otherAuth = { Authorization: `Bearer ${await other.key(['read'])}` };
    await removeMember(other.d.app, other.ws.id, other.admin.email);
    const gone = await rpc(other.d, [toolCall('get_site_profile', {}, 7), { jsonrpc: '2.0', method: 'notifications/initialized' }], otherAuth);
    expect([gone.status, await idsOf(gone)]).toEqual([403, null]);
    const goneOne = await rpc(other.d, toolCall('get_site_profile', {}, 8), otherAuth);
    expect([goneOne.status, await idsOf(goneOne)]).toEqual([403, 8]);
  });
});
