import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { resolveOAuthAccessToken } from '../../src/oauth/resolve.js';
import { Browserless, approve, pkce, register, token } from './helpers.js';

describe('svc connections list | revoke', () => {
  it('lists connections (filtered by workspace and user) and revokes one with --yes, across processes', async () => {
    const d = await startDaemon({ jobs: false });
    const wsA = await seedWorkspace(d.app, { name: 'cli-a.example' });
    const wsB = await seedWorkspace(d.app, { name: 'cli-b.example' });
    const alice = await seedUser(d.app, wsA, 'editor');
    const bob = await seedUser(d.app, wsB, 'editor');
    const client = await register(d.url, { client_name: 'VS Code' });
    const connect = async (u: typeof alice, wsId: string) => {
      const b = new Browserless(d.url);
      await b.signIn(u.email, u.password);
      const p = pkce();
      const loc = await approve(b, client, { challenge: p.challenge, workspaceId: wsId });
      const t = await token(d.url, { grant_type: 'authorization_code', code: loc.searchParams.get('code')!, code_verifier: p.verifier, redirect_uri: client.redirect, client_id: client.client_id });
      return t.body.access_token as string;
    };
    const aliceToken = await connect(alice, wsA.id);
    await connect(bob, wsB.id);
    const cli = (args: string[]) => runCli(args, { env: d.env, cwd: d.dir });

    const all = await cli(['connections', 'list', '--json']);
    expect(all.code).toBe(0);
    expect(all.json()).toHaveLength(2);
    const human = await cli(['connections', 'list']);
    expect(human.stdout).toContain('VS Code');
    expect(human.stdout).toContain('cli-a.example');

    const onlyA = (await cli(['connections', 'list', '--workspace', 'cli-a.example', '--json'])).json();
    expect(onlyA.map((c: any) => c.user.email)).toEqual([alice.email]);
    const onlyBob = (await cli(['connections', 'list', '--user', bob.email, '--json'])).json();
    expect(onlyBob.map((c: any) => c.workspace.name)).toEqual(['cli-b.example']);
    expect(onlyBob[0]).toMatchObject({ client: { name: 'VS Code', redirectHost: '127.0.0.1:9' }, scopes: ['read', 'content'], status: 'active' });

    const id = onlyA[0].id;
    const refused = await cli(['connections', 'revoke', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(await resolveOAuthAccessToken(d.app, aliceToken)).not.toBeNull();

    const revoked = await cli(['connections', 'revoke', id, '--yes']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked connection ${id}`);
    expect(await resolveOAuthAccessToken(d.app, aliceToken)).toBeNull();
    expect((await cli(['connections', 'list', '--json'])).json()).toHaveLength(1);

    const unknown = await cli(['connections', 'revoke', 'oac_nope', '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Connection "oac_nope" not found');
  });
});
