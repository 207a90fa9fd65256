import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { SESSIONS_PER_USER } from '../../src/auth/sessions.js';
import { PENDING_PER_SESSION } from '../../src/oauth/authorize.js';
import { cookieOf, getAuthorize, hidden, postConsent, registerClient, sessionFor } from './flow.js';
import { pkce } from './helpers.js';

/** What one signed-in person can make the database hold, whatever their role. */
let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

const count = async (table: string, where: Record<string, string>) => Number((await d.app.db(table).where(where).count({ n: '*' }).first())!.n);

async function signIn(email: string, password: string): Promise<string> {
  const form = await fetch(`${d.url}/login?next=%2Fconnections`);
  const csrfCookie = form.headers.getSetCookie().find((c) => c.startsWith('__login_csrf='))!.split(';')[0];
  const res = await fetch(`${d.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrfCookie },
    body: new URLSearchParams({ csrf: hidden(await form.text(), 'csrf')!, email, password, next: '/connections' }).toString(),
  });
  expect(res.status).toBe(303);
  return cookieOf(res)!;
}

describe('rows a signed-in person makes are bounded', () => {
  it(`a user keeps at most ${SESSIONS_PER_USER} browser sessions: signing in past it ends the oldest, never the new one`, async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'viewer');
    const cookies: string[] = [];
    for (let i = 0; i < SESSIONS_PER_USER + 3; i++) cookies.push(await signIn(user.email, user.password));
    expect(await count('sessions', { user_id: user.id })).toBe(SESSIONS_PER_USER);
    const signedIn = async (cookie: string) => (await fetch(`${d.url}/connections`, { redirect: 'manual', headers: { Cookie: cookie } })).status === 200;
    expect(await signedIn(cookies[0])).toBe(false);
    expect(await signedIn(cookies.at(-1)!)).toBe(true);
    expect(await signedIn(cookies.at(-SESSIONS_PER_USER)!)).toBe(true);
  }, 60_000);

  it(`a session keeps at most ${PENDING_PER_SESSION} pending consent requests: the newest can still be approved, the oldest is gone`, async () => {
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'viewer');
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d);
    const params = { client_id: client.client_id, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's'.repeat(8000) };
    const requests: string[] = [];
    for (let i = 0; i < PENDING_PER_SESSION + 5; i++) {
      const { res, html } = await getAuthorize(d, s, params);
      expect(res.status).toBe(200);
      requests.push(hidden(html, 'request')!);
    }
    const sessionHash = (await d.app.db('sessions').where({ user_id: user.id }).first('id_hash')).id_hash;
    expect(await count('oauth_requests', { session_hash: sessionHash })).toBe(PENDING_PER_SESSION);
    const answer = (request: string) => postConsent(d, s, { csrf: s.csrf, request, decision: 'approve', workspace: ws.id, scope: 'read' });
    const oldest = await answer(requests[0]);
    expect(oldest.status).toBe(400);
    expect(await oldest.text()).toMatch(/expired or was already answered/);
    const newest = await answer(requests.at(-1)!);
    expect(newest.status).toBe(303);
    expect(new URL(newest.headers.get('location')!).searchParams.get('code')).toMatch(/^svc_code_/);
  });
});
