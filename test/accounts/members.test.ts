import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, removeMember, setMemberRole } from '../../src/accounts/members.js';
import pg from 'pg';
import { changePassword, removeUser } from '../../src/accounts/users.js';
import type { AppError } from '../../src/errors.js';
import type { App } from '../../src/app.js';
import { getConnection } from '../../src/oauth/connections.js';
import { listMembers } from '../../src/workspaces/members.js';
import { TestClock } from '../helpers/clock.js';
import { type TestDaemon, startDaemon, startDaemonOn } from '../helpers/daemon.js';
import { PG_URL } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { approve, exchange, mcp, registerClient, sessionFor, token } from '../oauth/flow.js';

let d: TestDaemon;
const clock = new TestClock();
beforeAll(async () => {
  d = await startDaemon({ jobs: false, clock });
});

const admins = async (app: App, workspaceId: string) => (await listMembers(app, workspaceId)).filter((m) => m.role === 'admin').map((m) => m.email);

async function expectLastAdmin(p: Promise<unknown>, email: string, where = 'this workspace') {
  await expect(p).rejects.toMatchObject({ code: 'last_admin', status: 400, message: `${email} is the last admin of ${where}; make another member admin first` });
}

describe('at least one admin per workspace', () => {
  it('members add, set-role, remove and users remove refuse to leave a workspace without an admin', async () => {
    const ws = await seedWorkspace(d.app);
    const owner = await seedUser(d.app, ws, 'admin');
    await expectLastAdmin(addMember(d.app, ws.id, owner.email, 'editor'), owner.email); // add can demote: not the last admin
    await expectLastAdmin(setMemberRole(d.app, ws.id, owner.email, 'viewer'), owner.email);
    await expectLastAdmin(removeMember(d.app, ws.id, owner.email), owner.email);
    await expectLastAdmin(removeUser(d.app, owner.email), owner.email, `workspace ${ws.name}`);
    expect(await admins(d.app, ws.id)).toEqual([owner.email]);

    // With a second admin each of them works.
    const second = await seedUser(d.app, ws, 'editor');
    expect(await addMember(d.app, ws.id, second.email, 'admin')).toMatchObject({ role: 'admin' });
    expect(await addMember(d.app, ws.id, owner.email, 'editor')).toMatchObject({ role: 'editor' });
    await expectLastAdmin(removeMember(d.app, ws.id, second.email), second.email);
    expect(await setMemberRole(d.app, ws.id, owner.email, 'admin')).toMatchObject({ role: 'admin' });
    await removeMember(d.app, ws.id, second.email);
    expect(await admins(d.app, ws.id)).toEqual([owner.email]);
    // A user who administers nothing alone may go.
    const viewer = await seedUser(d.app, ws, 'viewer');
    await removeUser(d.app, viewer.email);
    expect((await listMembers(d.app, ws.id)).map((m) => m.email)).toEqual([owner.email]);
  });

  it(`two admins demoting or removing each other at the same moment leave one (${PG_URL ? 'PostgreSQL' : 'SQLite'}, two daemons)`, async () => {
    const other = await startDaemonOn(d.env, d.dir, {}, false);
    type Move = (app: App, workspaceId: string, email: string) => Promise<unknown>;
    const moves: Record<string, Move> = {
      demote: (app, ws, email) => setMemberRole(app, ws, email, 'editor'),
      remove: (app, ws, email) => removeMember(app, ws, email),
      'add as viewer': (app, ws, email) => addMember(app, ws, email, 'viewer'),
      'remove the user': (app, _ws, email) => removeUser(app, email),
    };
    const names = Object.keys(moves);
    // Fixtures first (password hashing is the slow part): two admins shared by the rounds that
    // keep both users, fresh ones where a user may be deleted. Then the races, a round at a time.
    const shared = await Promise.all([seedUser(d.app, null), seedUser(d.app, null)]);
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async (_, round) => {
        const pair = [names[round % names.length], names[(round + 1) % names.length]] as const;
        const ws = await seedWorkspace(d.app);
        const [a, b] = pair.includes('remove the user') ? await Promise.all([seedUser(d.app, null), seedUser(d.app, null)]) : shared;
        for (const u of [a, b]) await addMember(d.app, ws.id, u.email, 'admin');
        return { ws, a, b, pair };
      }),
    );
    for (const { ws, a, b, pair: [moveA, moveB] } of rounds) {
      const results = await Promise.allSettled([moves[moveA](d.app, ws.id, b.email), moves[moveB](other.app, ws.id, a.email)]);
      const label = `${moveA} vs ${moveB}`;
      expect(results.filter((r) => r.status === 'fulfilled'), label).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason, label).toMatchObject({ code: 'last_admin' });
      expect(await admins(d.app, ws.id), label).toHaveLength(1);
    }
  });
});

describe('removing a member ends their agent connections to that workspace', () => {
  it('revokes them at once; refresh is refused; adding the member back brings no old grant back', async () => {
    const ws = await seedWorkspace(d.app);
    const elsewhere = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'editor');
    await addMember(d.app, elsewhere.id, user.email, 'editor');
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d);
    const here = await exchange(d, client.client_id, await approve(d, s, client, { workspaceId: ws.id }));
    const there = await exchange(d, client.client_id, await approve(d, s, client, { workspaceId: elsewhere.id }));
    const refresh = (refreshToken: string) => token(d, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client_id });
    expect((await mcp(d, here.access_token)).status).toBe(200);

    await removeMember(d.app, ws.id, user.email);
    // The spec's refusal, with its message, for as long as the last access token lives.
    const refused = await mcp(d, here.access_token);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.message).toBe('You are no longer a member of this workspace');
    expect((await refresh(here.refresh_token)).status).toBe(400);
    const [conn] = await d.app.db('oauth_connections').where({ user_id: user.id, workspace_id: ws.id });
    expect(await getConnection(d.app, conn.id)).toMatchObject({ status: 'revoked' });
    expect(conn.revoked_reason).toBe('membership_removed');
    // The connection to the other workspace is untouched.
    expect((await mcp(d, there.access_token)).status).toBe(200);

    await addMember(d.app, ws.id, user.email, 'editor');
    expect((await mcp(d, here.access_token)).status).toBe(403); // no revival
    clock.advance(61 * 60_000); // the access token expires: then it is just unknown
    const expired = await mcp(d, here.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const again = await refresh(here.refresh_token);
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it('a code exchanged while the member is being removed leaves no connection that re-adding revives', async () => {
    const ws = await seedWorkspace(d.app);
    const client = await registerClient(d);
    const users = await Promise.all(Array.from({ length: 6 }, () => seedUser(d.app, ws, 'editor')));
    const codes = await Promise.all(users.map(async (u) => approve(d, await sessionFor(d, u.id), client)));
    const raced = await Promise.all(users.map(async (u, i) => Promise.allSettled([exchange(d, client.client_id, codes[i]), removeMember(d.app, ws.id, u.email)])));
    for (const u of users) await addMember(d.app, ws.id, u.email, 'editor');
    // One final assertion over every outcome: each removal succeeded, and each exchange ended
    // refused either way: a token that no longer works, or an exchange refused as a grant (not a 500).
    const outcomes: string[] = [];
    for (const [exchanged, removed] of raced) {
      const removal = removed.status === 'fulfilled' ? 'removed' : `removal failed: ${String(removed.reason)}`;
      if (exchanged.status === 'fulfilled') outcomes.push(`${removal}; token ${(await mcp(d, exchanged.value.access_token)).status === 200 ? 'works' : 'refused'}`);
      else outcomes.push(`${removal}; exchange ${/^Error: token: 400 .*"invalid_grant"/.test(String(exchanged.reason)) ? 'refused' : `failed: ${String(exchanged.reason)}`}`);
    }
    expect(outcomes.map((o) => o.replace(/; (token|exchange) refused$/, '; refused'))).toEqual(users.map(() => 'removed; refused'));
    // And no connection of theirs survives the race unrevoked.
    expect(await d.app.db('oauth_connections').whereIn('user_id', users.map((u) => u.id)).whereNull('revoked_at').select('id')).toEqual([]);
  });

  it('refuses a code of a member whose membership ended since the approval, and creates no connection', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'editor');
    const client = await registerClient(d);
    const c = await approve(d, await sessionFor(d, user.id), client);
    // Only the row goes (an older daemon's `members remove`), so the unexchanged code survives.
    await d.app.db('memberships').where({ workspace_id: ws.id, user_id: user.id }).delete();
    const res = await token(d, { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri, client_id: client.client_id });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'You are no longer a member of this workspace' });
    expect(await d.app.db('oauth_connections').where({ user_id: user.id })).toEqual([]);
  });

  it('refuses refresh to a non-member even when the membership ended without the revocation', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'editor');
    const client = await registerClient(d);
    const pair = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client));
    // What a daemon of the previous version does on `members remove`: only the row goes.
    await d.app.db('memberships').where({ workspace_id: ws.id, user_id: user.id }).delete();
    const res = await token(d, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'You are no longer a member of this workspace' });
    expect((await mcp(d, pair.access_token)).status).toBe(401);
  });
});

describe.skipIf(!PG_URL)('a user removed while a membership change of theirs waits', () => {
  it('is a clear 404, not a foreign-key 500 (members add) or a silent success (passwd)', async () => {
    const ws = await seedWorkspace(d.app);
    const u = await seedUser(d.app, null);
    const v = await seedUser(d.app, null);
    const holder = new pg.Client({ connectionString: d.env.SVC_DATABASE_URL });
    await holder.connect();
    try {
      // Hold the workspace's lock, so members add reads the user and then waits for it.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [ws.id]);
      const adding = addMember(d.app, ws.id, u.email, 'editor').then(
        () => null,
        (err: AppError) => err,
      );
      const waiting = async () => (await holder.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n;
      const until = Date.now() + 10_000;
      while ((await waiting()) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await removeUser(d.app, u.email);
      await holder.query('ROLLBACK');
      expect(await adding).toMatchObject({ code: 'not_found', status: 404 });
    } finally {
      await holder.end();
    }
    // Changing the password of a user removed after it was looked up: refused, not "changed".
    await d.app.db('users').where({ email: v.email }).delete();
    await expect(changePassword(d.app, v.email, 'another good password')).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});
