import { beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { removeMember } from '../../src/accounts/members.js';
import { listConnections } from '../../src/oauth/connections.js';
import { approve, cookieOf, exchange, hidden, mcp, registerClient, sessionFor, token } from './flow.js';

const DAY = 86_400_000;

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

const postForm = (url: string, cookie: string | undefined, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}), ...headers }, body: new URLSearchParams(fields).toString() });

async function loginForm(base: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/login?next=%2Fconnections`, { headers });
  const html = await res.text();
  const raw = res.headers.getSetCookie().find((c) => c.startsWith('__login_csrf='));
  return { res, raw, cookie: raw?.split(';')[0] ?? '', csrf: hidden(html, 'csrf')! };
}

const sessionRows = async (t: TestDaemon) => Number((await t.app.db('sessions').count({ n: '*' }).first())!.n);

describe('login, session cookie, logout', () => {
  it('signs in with the form: the session cookie is HttpOnly + SameSite=Lax, not Secure over http, and replaces any earlier session', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const { raw, cookie, csrf } = await loginForm(d.url);
    // The form's CSRF token is a cookie scoped to /login; no session yet.
    expect(raw).toMatch(/httponly/i);
    expect(raw).toMatch(/samesite=lax/i);
    expect(raw).toMatch(/path=\/login/i);
    // A session the browser held before (planted by someone else, say) does not survive sign-in.
    const planted = await sessionFor(d, (await seedUser(d.app, ws)).id);
    const ok = await postForm(`${d.url}/login`, `${cookie}; ${planted.cookie}`, { csrf, email: user.email, password: user.password, next: '/connections' });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/connections');
    const set = ok.headers.getSetCookie().find((c) => c.startsWith('__session='))!;
    expect(set).toMatch(/httponly/i);
    expect(set).toMatch(/samesite=lax/i);
    expect(set).not.toMatch(/secure/i);
    expect(ok.headers.getSetCookie().find((c) => c.startsWith('__login_csrf='))).toMatch(/max-age=0|expires=Thu, 01 Jan 1970/i);
    const signedIn = set.split(';')[0];
    expect(signedIn).not.toBe(planted.cookie);
    expect((await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: planted.cookie } })).status).toBe(302);
    const page = await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: signedIn } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Connected applications');

    // Logout needs the CSRF token; then the cookie no longer works.
    const newCsrf = hidden(await (await fetch(`${d.url}/connections`, { headers: { Cookie: signedIn } })).text(), 'csrf')!;
    const noCsrf = await postForm(`${d.url}/logout`, signedIn, {});
    expect(noCsrf.status).toBe(303);
    expect((await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: signedIn } })).status).toBe(200);
    const out = await postForm(`${d.url}/logout`, signedIn, { csrf: newCsrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.getSetCookie().find((c) => c.startsWith('__session='))).toMatch(/expires=Thu, 01 Jan 1970|max-age=0/i);
    expect((await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: signedIn } })).status).toBe(302);
  });

  it('showing the sign-in form writes no session; posting it with the right password writes one', async () => {
    const t = await startDaemon({ jobs: false });
    const user = await seedUser(t.app, await seedWorkspace(t.app));
    const before = await sessionRows(t);
    const forms = await Promise.all(Array.from({ length: 20 }, () => loginForm(t.url)));
    expect(await sessionRows(t)).toBe(before);
    // The token is stable for one browser (two tabs work), and new for another.
    const again = await loginForm(t.url, { Cookie: forms[0].cookie });
    expect(again.csrf).toBe(forms[0].csrf);
    expect(again.raw).toBeUndefined();
    expect(new Set(forms.map((f) => f.csrf)).size).toBe(20);
    // A wrong password or a missing token writes nothing either.
    expect((await postForm(`${t.url}/login`, forms[0].cookie, { csrf: forms[0].csrf, email: user.email, password: 'wrong password' })).status).toBe(401);
    expect((await postForm(`${t.url}/login`, '', { csrf: forms[1].csrf, email: user.email, password: user.password })).status).toBe(403);
    expect((await postForm(`${t.url}/login`, forms[2].cookie, { csrf: forms[1].csrf, email: user.email, password: user.password })).status).toBe(403);
    expect(await sessionRows(t)).toBe(before);
    expect((await postForm(`${t.url}/login`, forms[3].cookie, { csrf: forms[3].csrf, email: user.email, password: user.password })).status).toBe(303);
    expect(await sessionRows(t)).toBe(before + 1);
  });

  it('refuses a login POST without the CSRF token, and never redirects off-site after login', async () => {
    const user = await seedUser(d.app, await seedWorkspace(d.app));
    const { cookie, csrf } = await loginForm(d.url);
    const bad = await postForm(`${d.url}/login`, cookie, { email: user.email, password: user.password });
    expect(bad.status).toBe(403);
    expect(await bad.text()).toContain('expired');
    const ok = await postForm(`${d.url}/login`, cookie, { csrf, email: user.email, password: user.password, next: '//evil.example/x' });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/connections');
    for (const next of ['/\\evil.example', 'https://evil.example/', '/\t/evil.example']) {
      const again = await loginForm(d.url);
      const res = await postForm(`${d.url}/login`, again.cookie, { csrf: again.csrf, email: user.email, password: user.password, next });
      const to = new URL(res.headers.get('location')!, d.url);
      expect(to.origin, next).toBe(d.url);
    }
  });

  it('throttles repeated wrong passwords with a clear message and Retry-After', async () => {
    const user = await seedUser(d.app, await seedWorkspace(d.app));
    const { cookie, csrf } = await loginForm(d.url);
    for (let i = 0; i < 5; i++) {
      const res = await postForm(`${d.url}/login`, cookie, { csrf, email: user.email, password: 'wrong password' });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('do not match');
    }
    const blocked = await postForm(`${d.url}/login`, cookie, { csrf, email: user.email, password: user.password });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.text()).toMatch(/Too many sign-in attempts\. Please wait \d+ minutes? and try again\./);
    expect(cookieOf(blocked)).toBeUndefined();
  });

  it('a session lives oauth.sessionTtl (7 days), then the pages ask to sign in again', async () => {
    const clock = new TestClock();
    const t = await startDaemon({ jobs: false, clock });
    const user = await seedUser(t.app, await seedWorkspace(t.app));
    const s = await sessionFor(t, user.id);
    clock.advance(7 * DAY - 60_000);
    expect((await fetch(`${t.url}/connections`, { redirect: 'manual', headers: { Cookie: s.cookie } })).status).toBe(200);
    clock.advance(120_000);
    const res = await fetch(`${t.url}/connections`, { redirect: 'manual', headers: { Cookie: s.cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?next=%2Fconnections');
  });

  it('marks the cookie Secure behind a trusted proxy that says https', async () => {
    const t = await startDaemon({ jobs: false, overrides: { 'server.trustProxy': true } });
    const user = await seedUser(t.app, await seedWorkspace(t.app));
    const https = { 'X-Forwarded-Proto': 'https' };
    const form = await loginForm(t.url, https);
    expect(form.raw).toMatch(/;\s*secure/i);
    const ok = await postForm(`${t.url}/login`, form.cookie, { csrf: form.csrf, email: user.email, password: user.password }, https);
    expect(ok.headers.getSetCookie().find((c) => c.startsWith('__session='))).toMatch(/;\s*secure/i);
    // Without trustProxy the header is ignored.
    const plain = await loginForm(d.url, https);
    expect(plain.raw).not.toMatch(/secure/i);
  });
});

describe('connections after consent', () => {
  it('a code approved before the member was removed cannot be exchanged', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'editor');
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d);
    const c = await approve(d, s, client);
    await removeMember(d.app, ws.id, user.email);
    await expect(exchange(d, client.client_id, c)).rejects.toThrow(/invalid_grant/);
  });

  it('a connection unused for oauth.connectionIdleExpiry (30 days) answers 401 on /api/mcp and cannot refresh', async () => {
    const clock = new TestClock();
    const t = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(t.app);
    const user = await seedUser(t.app, ws);
    const s = await sessionFor(t, user.id);
    const client = await registerClient(t);
    const pair = await exchange(t, client.client_id, await approve(t, s, client));
    const refresh = () => token(t, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id });
    const status = async () => (await listConnections(t.app, { userId: user.id }))[0].status;
    clock.advance(30 * DAY - 60_000);
    expect(await status()).toBe('active');
    clock.advance(120_000);
    expect(await status()).toBe('expired');
    const res = await mcp(t, pair.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    const late = await refresh();
    expect(late.status).toBe(400);
    expect((await late.json()).error_description).toBe('This connection expired after going unused; approve it again in the browser');
  });

  it('revoking from the connections page needs the CSRF token and ends the connection', async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d, { client_name: 'Page Agent' });
    const pair = await exchange(d, client.client_id, await approve(d, s, client));
    const html = await (await fetch(`${d.url}/connections`, { headers: { Cookie: s.cookie } })).text();
    expect(html).toContain('Page Agent');
    const id = /action="\/connections\/([^/"]+)\/revoke"/.exec(html)![1];
    expect((await postForm(`${d.url}/connections/${id}/revoke`, s.cookie, {})).status).toBe(403);
    expect((await mcp(d, pair.access_token)).status).toBe(200);
    // Someone else's session cannot revoke it.
    const other = await sessionFor(d, (await seedUser(d.app, ws)).id);
    expect((await postForm(`${d.url}/connections/${id}/revoke`, other.cookie, { csrf: other.csrf })).status).toBe(404);
    const ok = await postForm(`${d.url}/connections/${id}/revoke`, s.cookie, { csrf: s.csrf });
    expect(ok.status).toBe(303);
    expect((await mcp(d, pair.access_token)).status).toBe(401);
    expect(await (await fetch(`${d.url}/connections`, { headers: { Cookie: s.cookie } })).text()).not.toContain('Page Agent');
  });
});
