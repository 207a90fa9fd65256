import { describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { findClient, purgeUnusedClients } from '../../src/oauth/clients.js';
import { approve, exchange, getAuthorize, registerClient, sessionFor } from './flow.js';
import { REVOKED_CONNECTION_KEPT_MS } from '../../src/oauth/connections.js';
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
