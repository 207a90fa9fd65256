import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { changePassword } from '../../src/accounts/users.js';
import { PageClient, approve, exchange, hidden, mcp, registerClient, sessionFor } from '../oauth/flow.js';

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

const signedIn = async (cookie: string) => (await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: cookie } })).status === 200;

describe('svc users passwd', () => {
  it("signs the user out of every browser session, and only theirs; agent connections keep working", async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const other = await seedUser(d.app, ws);
    const laptop = new PageClient(d.url);
    expect((await laptop.signIn(user.email, user.password)).status).toBe(303);
    const phone = await sessionFor(d, user.id);
    const theirs = await sessionFor(d, other.id);
    const client = await registerClient(d);
    const pair = await exchange(d, client.client_id, await approve(d, phone, client));
    expect(await signedIn(phone.cookie)).toBe(true);

    const r = await runCli(['users', 'passwd', '--email', user.email, '--password', 'a new password'], { env: d.env, cwd: d.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Password changed for ${user.email}\nSigned out of 2 browser sessions\n`);
    expect(await signedIn(phone.cookie)).toBe(false);
    expect((await laptop.get('/connections')).status).toBe(302);
    expect(await signedIn(theirs.cookie)).toBe(true);
    expect((await mcp(d, pair.access_token)).status).toBe(200);
    // The new password signs in; the old one does not.
    expect((await new PageClient(d.url).signIn(user.email, user.password)).status).toBe(401);
    expect((await new PageClient(d.url).signIn(user.email, 'a new password')).status).toBe(303);
  });

  it('--revoke-connections also ends their agent connections (and --json says how many)', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const other = await seedUser(d.app, ws);
    const client = await registerClient(d);
    const mine = await exchange(d, client.client_id, await approve(d, await sessionFor(d, user.id), client));
    const theirs = await exchange(d, client.client_id, await approve(d, await sessionFor(d, other.id), client));
    const pending = await approve(d, await sessionFor(d, user.id), client); // approved, not exchanged yet

    const r = await runCli(['users', 'passwd', '--email', user.email, '--password', 'a new password', '--revoke-connections', '--json'], { env: d.env, cwd: d.dir });
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ email: user.email, sessionsEnded: 2, connectionsRevoked: 1 });
    expect((await mcp(d, mine.access_token)).status).toBe(401);
    expect((await mcp(d, theirs.access_token)).status).toBe(200);
    await expect(exchange(d, client.client_id, pending)).rejects.toThrow(/invalid_grant/);
    const human = await runCli(['users', 'passwd', '--email', user.email, '--password', 'a third password', '--revoke-connections'], { env: d.env, cwd: d.dir });
    expect(human.stdout).toBe(`Password changed for ${user.email}\nSigned out of 0 browser sessions\nRevoked 0 agent connections\n`);
  });

  it('a sign-in with the old password racing the change opens no session that outlives it', async () => {
    const t = await startDaemon({ jobs: false });
    const user = await seedUser(t.app, await seedWorkspace(t.app));
    const browsers = Array.from({ length: 8 }, () => new PageClient(t.url));
    const forms = await Promise.all(browsers.map(async (b) => hidden(await (await b.get('/login')).text(), 'csrf')!));
    const answers = await Promise.all([
      ...browsers.map((b, i) => b.post('/login', { csrf: forms[i], email: user.email, password: user.password })),
      changePassword(t.app, user.email, 'the new password'),
    ]);
    // Whichever sign-ins won before the change were ended by it; the others found the new password.
    expect(Number((await t.app.db('sessions').where({ user_id: user.id }).count({ n: '*' }).first())!.n)).toBe(0);
    for (const [i, b] of browsers.entries()) {
      const status = (answers[i] as Response).status;
      expect([303, 401, 429], `sign-in ${i}`).toContain(status);
      expect((await b.get('/connections')).status).toBe(302);
    }
  });
});
