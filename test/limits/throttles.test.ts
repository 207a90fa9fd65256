import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { cookieOf, hidden, register } from '../oauth/flow.js';

// Issue 10 §2 and 11 §1: sign-in attempts are counted before the password is checked, per account
// and address (plus a looser per-address limit); registrations are throttled per address.

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({
    jobs: false,
    overrides: { 'server.trustProxy': true, 'limits.signIn.perAddress': 12, 'limits.registration.perAddress': 3 },
  });
});

/** The sign-in form as a browser at `address` (the proxy-appended X-Forwarded-For entry) sees it. */
async function formAt(address: string) {
  const res = await fetch(`${d.url}/login`, { headers: { 'X-Forwarded-For': address } });
  const csrf = hidden(await res.text(), 'csrf')!;
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__login_csrf='))!.split(';')[0];
  return (email: string, password: string) =>
    fetch(`${d.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, 'X-Forwarded-For': address },
      body: new URLSearchParams({ csrf, email, password, next: '/connections' }).toString(),
    });
}

describe('sign-in throttle', () => {
  it('100 parallel wrong passwords: at most 5 are checked; the right one is then refused there, not from another address', async () => {
    const user = await seedUser(d.app, await seedWorkspace(d.app));
    const post = await formAt('203.0.113.5');
    const answers = await Promise.all(Array.from({ length: 100 }, () => post(user.email, 'wrong password')));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    const refused = await post(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toMatch(/Too many sign-in attempts\. Please wait \d+ minutes? and try again\./);
    expect(cookieOf(refused)).toBeUndefined();
    // A stranger's guesses elsewhere do not lock the account out.
    const elsewhere = await (await formAt('198.51.100.7'))(user.email, user.password);
    expect(elsewhere.status).toBe(303);
    expect(cookieOf(elsewhere)).toBeDefined();
  });

  it('a successful sign-in starts the account-and-address count over', async () => {
    const user = await seedUser(d.app, await seedWorkspace(d.app));
    const post = await formAt('203.0.113.20');
    for (let i = 0; i < 4; i++) expect((await post(user.email, 'wrong')).status).toBe(401);
    expect((await post(user.email, user.password)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await post(user.email, 'wrong')).status).toBe(401);
    expect((await post(user.email, user.password)).status).toBe(303);
  });

  it('one address guessing across many accounts meets the per-address limit (12 here)', async () => {
    const ws = await seedWorkspace(d.app);
    const users = await Promise.all(Array.from({ length: 5 }, () => seedUser(d.app, ws)));
    const post = await formAt('203.0.113.30');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await post(users[i % 5].email, 'wrong')).status);
    expect(statuses.slice(0, 12).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(12)).toEqual([429, 429, 429]);
    // Another address is not concerned.
    expect((await (await formAt('203.0.113.31'))(users[0].email, users[0].password)).status).toBe(303);
  });
});

describe('registration throttle', () => {
  const from = (address: string) => ({ headers: { 'X-Forwarded-For': address } });
  const registerFrom = (address: string) =>
    fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...from(address).headers },
      body: JSON.stringify({ client_name: 'Agent', redirect_uris: ['http://127.0.0.1:9999/cb'], token_endpoint_auth_method: 'none' }),
    });

  it('the 4th registration from one address is 429 in RFC 6749 JSON with Retry-After; another address is fine', async () => {
    for (let i = 0; i < 3; i++) expect((await registerFrom('192.0.2.10')).status).toBe(201);
    const refused = await registerFrom('192.0.2.10');
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({ error: 'invalid_request', error_description: `Too many client registrations from this address. Retry in ${retry} s.` });
    expect((await registerFrom('192.0.2.11')).status).toBe(201);
  });

  it('parallel registrations from one address: exactly the limit get through', async () => {
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => registerFrom('192.0.2.50')))).map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(17).fill(429)]);
  });

  it('a client-written X-Forwarded-For entry left of the proxy one does not escape the throttle', async () => {
    for (let i = 0; i < 3; i++) expect((await registerFrom(`10.0.0.${i}, 192.0.2.60`)).status).toBe(201);
    expect((await registerFrom('10.9.9.9, 192.0.2.60')).status).toBe(429);
    expect((await register(d)).status).toBe(201); // no header: the socket address, its own count
  });
});
