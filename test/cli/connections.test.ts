import prompts from 'prompts';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { approve, exchange, mcp, registerClient, sessionFor } from '../oauth/flow.js';


describe('svc connections (operator)', () => {
  it('revoke stops the token on /api/mcp at once; on a terminal it asks first', async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app, { name: 'ops.example' });
    const user = await seedUser(d.app, ws, 'admin');
    const client = await registerClient(d, { client_name: 'Cursor' });
    const pair = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client, { scopes: ['read'] }));
    const cli = (args: string[], interactive = false) => runCli(args, { env: d.env, cwd: d.dir, interactive });

    const list = await cli(['connections', 'list', '--json']);
    expect(list.code).toBe(0);
    const [conn] = list.json();
    expect(conn).toMatchObject({ client: { name: 'Cursor' }, workspace: { name: 'ops.example' }, user: { email: user.email }, scopes: ['read'], status: 'active', revokedAt: null });
    const table = await cli(['connections', 'list']);
    expect(table.stdout).toMatch(/Cursor\s+ops\.example/);

    const noTty = await cli(['connections', 'revoke', conn.id]);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('Refusing without --yes');

    prompts.inject([false]);
    const declined = await cli(['connections', 'revoke', conn.id], true);
    expect(declined.code).toBe(2);
    expect((await mcp(d, pair.access_token)).status).toBe(200);

    prompts.inject([true]);
    const done = await cli(['connections', 'revoke', conn.id, '--json'], true);
    expect(done.code).toBe(0);
    expect(done.json()).toMatchObject({ id: conn.id, status: 'revoked' });
    const after = await mcp(d, pair.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect((await cli(['connections', 'list', '--json'])).json()).toEqual([]);
  });

  it('marks connections unused for too long as expired', async () => {
    // The daemon's clock says the connection was made and last used 31 days ago; the CLI runs on
    // real time with the default oauth.connectionIdleExpiry (30 days).
    const clock = new TestClock();
    clock.advance(-31 * 86_400_000);
    const d = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const client = await registerClient(d);
    await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client));
    const res = await runCli(['connections', 'list', '--json'], { env: d.env, cwd: d.dir });
    expect(res.code).toBe(0);
    expect(res.json()[0].status).toBe('expired');
  });

  it('filters by workspace and user, and names an unknown connection clearly', async () => {
    const d = await startDaemon({ jobs: false });
    const wsA = await seedWorkspace(d.app, { name: 'cli-a.example' });
    const wsB = await seedWorkspace(d.app, { name: 'cli-b.example' });
    const alice = await seedUser(d.app, wsA, 'editor');
    const bob = await seedUser(d.app, wsB, 'editor');
    const client = await registerClient(d, { client_name: 'VS Code' });
    // A connection exists once the code is exchanged for tokens.
    await exchange(d, client.client_id, await approve(d, await sessionFor(d, alice.id), client, { workspaceId: wsA.id }));
    await exchange(d, client.client_id, await approve(d, await sessionFor(d, bob.id), client, { workspaceId: wsB.id }));
    const cli = (args: string[]) => runCli(args, { env: d.env, cwd: d.dir });

    expect((await cli(['connections', 'list', '--json'])).json()).toHaveLength(2);
    const onlyA = (await cli(['connections', 'list', '--workspace', 'cli-a.example', '--json'])).json();
    expect(onlyA.map((c: any) => c.user.email)).toEqual([alice.email]);
    const onlyBob = (await cli(['connections', 'list', '--user', bob.email, '--json'])).json();
    expect(onlyBob.map((c: any) => c.workspace.name)).toEqual(['cli-b.example']);
    expect(onlyBob[0]).toMatchObject({ client: { name: 'VS Code', returnsTo: 'http://127.0.0.1:9999/cb' }, scopes: ['read', 'content'], status: 'active' });

    const unknown = await cli(['connections', 'revoke', 'oac_nope', '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Connection "oac_nope" not found');
  });
});
