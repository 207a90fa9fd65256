import { describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { findClient, purgeUnusedClients } from '../../src/oauth/clients.js';
import { approve, exchange, getAuthorize, registerClient, sessionFor, token } from './flow.js';
import { EXPIRED_CONNECTION_KEPT_MS, getConnection, REVOKED_CONNECTION_KEPT_MS } from '../../src/oauth/connections.js';
import { runCleanup } from '../../src/jobs/cleanup.js';
import { pkce } from './helpers.js';

describe('unused client expiry', () => {
  it('removes clients that never got a grant after oauth.unusedClientExpiry, and keeps approved ones', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'editor');
    const idle = await registerClient(d, { client_name: 'Never approved' });
    const used = await registerClient(d, { client_name: 'Approved' });
    const session = await sessionFor(d, user.id);
    await approve(d, session, used, { workspaceId: ws.id });

    clock.advance(86_400_000 - 60_000);
    expect(await purgeUnusedClients(d.app)).toBe(0); // not a day old yet
    clock.advance(120_000);
    expect(await purgeUnusedClients(d.app)).toBe(1);
    expect(await findClient(d.app, idle.client_id)).toBeNull();
    expect(await findClient(d.app, used.client_id)).not.toBeNull();

    // The authorization endpoint now shows an error page for the removed client (no redirect).
    const { res, html } = await getAuthorize(d, session, {
      response_type: 'code',
      client_id: idle.client_id,
      redirect_uri: idle.redirect_uris[0],
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    expect(res.status).toBe(400);
    expect(html).toContain('not registered here');
  });
});

describe('revoked connections', () => {
  it('are removed by the cleanup round REVOKED_CONNECTION_KEPT_MS after their revocation; the live one stays', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'viewer');
    const client = await registerClient(d);
    const session = await sessionFor(d, user.id);
    // Each approval of the same client replaces (revokes) the connection before it.
    for (let i = 0; i < 3; i++) await exchange(d, client.client_id, await approve(d, session, client, { workspaceId: ws.id, scopes: ['read'] }));
    const rows = () => d.app.db('oauth_connections').where({ user_id: user.id }).orderBy('created_at').select('id', 'revoked_at');
    const before = await rows();
    expect(before.map((r) => r.revoked_at !== null)).toEqual([true, true, false]);

    clock.advance(REVOKED_CONNECTION_KEPT_MS - 60_000);
    expect((await runCleanup(d.app)).oauth.connections).toBe(0);
    clock.advance(120_000);
    expect((await runCleanup(d.app)).oauth.connections).toBe(2);
    expect((await rows()).map((r) => r.id)).toEqual([before[2].id]);
    expect(await d.app.db('oauth_tokens').where({ connection_id: before[2].id, kind: 'refresh' }).first()).toBeDefined();
  });
});

describe('connections expired from disuse', () => {
  it('are removed with their tokens EXPIRED_CONNECTION_KEPT_MS after they expired; one expired more recently still says it expired, a live one stays', async () => {
    const clock = new TestClock();
    const d = await startDaemon({ jobs: false, clock });
    const idle = d.app.config.oauth.connectionIdleExpiry;
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'viewer');
    // Three clients of one user: a new approval of the same client would revoke the one before.
    const connect = async () => {
      const client = await registerClient(d);
      const pair = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client, { workspaceId: ws.id, scopes: ['read'] }));
      const row = await d.app.db('oauth_connections').where({ client_id: client.client_id }).first();
      return { client, pair, id: row.id as string };
    };
    const tokens = async (id: string) => Number((await d.app.db('oauth_tokens').where({ connection_id: id, kind: 'refresh' }).count({ n: '*' }))[0].n);

    const old = await connect();
    clock.advance(20 * 86_400_000);
    const recent = await connect();
    clock.advance(idle + EXPIRED_CONNECTION_KEPT_MS - 20 * 86_400_000 - 60_000);
    const live = await connect();
    expect(await tokens(old.id)).toBe(1); // its current refresh token, never rotated nor revoked
    expect((await runCleanup(d.app)).oauth.expiredConnections).toBe(0); // a minute short of the grace

    clock.advance(120_000);
    expect((await runCleanup(d.app)).oauth).toMatchObject({ expiredConnections: 1, connections: 0 });
    expect(await d.app.db('oauth_connections').where({ id: old.id }).first()).toBeUndefined();
    expect(await tokens(old.id)).toBe(0);
    expect((await runCleanup(d.app)).oauth.expiredConnections).toBe(0);

    // The one expired 20 days ago is still there, and says why it no longer works.
    expect((await getConnection(d.app, recent.id)).status).toBe('expired');
    const refused = await token(d, { grant_type: 'refresh_token', refresh_token: recent.pair.refresh_token, client_id: recent.client.client_id });
    expect({ status: refused.status, body: await refused.json() }).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'This connection expired after going unused; approve it again in the browser' } });
    // The live one keeps working.
    expect((await getConnection(d.app, live.id)).status).toBe('active');
    const refreshed = await token(d, { grant_type: 'refresh_token', refresh_token: live.pair.refresh_token, client_id: live.client.client_id });
    expect(refreshed.status).toBe(200);
    // The removed one's refresh token is refused like any unknown token.
    const gone = await token(d, { grant_type: 'refresh_token', refresh_token: old.pair.refresh_token, client_id: old.client.client_id });
    expect((await gone.json()).error).toBe('invalid_grant');
  });
});
