import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/crypto.js';
import { TestClock } from '../helpers/clock.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { type BrowserSession, approve, exchange, mcp, registerClient, sessionFor, token } from './flow.js';

let d: TestDaemon;
let s: BrowserSession;
let client: { client_id: string; redirect_uris: string[] };

beforeAll(async () => {
  d = await startDaemon({ jobs: false });
  const ws = await seedWorkspace(d.app);
  const user = await seedUser(d.app, ws, 'admin');
  s = await sessionFor(d, user.id);
  client = await registerClient(d);
});

const codeGrant = (c: { code: string; verifier: string; redirectUri: string }, over: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code: c.code,
  code_verifier: c.verifier,
  redirect_uri: c.redirectUri,
  client_id: client.client_id,
  ...over,
});

async function expectError(res: Response, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = await res.json();
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('token endpoint: authorization_code', () => {
  it('issues a bearer + refresh pair with no-store, and the token works on /api/mcp', async () => {
    const c = await approve(d, s, client, { scopes: ['read'] });
    const res = await token(d, codeGrant(c));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    expect(body.access_token).toMatch(/^svc_oat_/);
    expect(body.refresh_token).toMatch(/^svc_ort_/);
    expect((await mcp(d, body.access_token)).status).toBe(200);
  });

  it('refuses a PKCE verifier mismatch with invalid_grant', async () => {
    const c = await approve(d, s, client);
    await expectError(await token(d, codeGrant(c, { code_verifier: 'x'.repeat(43) })), 400, 'invalid_grant');
    const { code_verifier: _v, ...noVerifier } = codeGrant(c);
    await expectError(await token(d, noVerifier), 400, 'invalid_request');
    // A failed attempt does not use the code up: the right verifier still works.
    expect((await token(d, codeGrant(c))).status).toBe(200);
  });

  it('refuses a wrong redirect_uri', async () => {
    const c = await approve(d, s, client);
    await expectError(await token(d, codeGrant(c, { redirect_uri: 'http://127.0.0.1:9999/elsewhere' })), 400, 'invalid_grant');
  });

  it('refuses a reused code and revokes what the first exchange issued', async () => {
    const c = await approve(d, s, client);
    const first = await exchange(d, client.client_id, c);
    expect((await mcp(d, first.access_token)).status).toBe(200);
    await expectError(await token(d, codeGrant(c)), 400, 'invalid_grant');
    expect((await mcp(d, first.access_token)).status).toBe(401);
    await expectError(await token(d, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id }), 400, 'invalid_grant');
  });

  it('refuses a code from another client and unknown grant types', async () => {
    const c = await approve(d, s, client);
    const other = await registerClient(d);
    await expectError(await token(d, codeGrant(c, { client_id: other.client_id })), 400, 'invalid_grant');
    await expectError(await token(d, { grant_type: 'password', client_id: client.client_id }), 400, 'unsupported_grant_type');
    await expectError(await token(d, { client_id: client.client_id }), 400, 'invalid_request');
    await expectError(await token(d, codeGrant(c, { resource: 'https://other.example/api/mcp' })), 400, 'invalid_target');
  });

  it('answers invalid_client with 401 for unknown clients and bad secrets (basic and post)', async () => {
    await expectError(await token(d, { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', client_id: 'cli_unknown' }), 401, 'invalid_client');
    await expectError(await token(d, { grant_type: 'authorization_code', code: 'x' }), 401, 'invalid_client');
    const conf = (await registerClient(d, { token_endpoint_auth_method: 'client_secret_basic' })) as { client_id: string; client_secret: string; redirect_uris: string[] };
    const basic = (id: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` });
    const bad = await token(d, { grant_type: 'refresh_token', refresh_token: 'r' }, basic(conf.client_id, 'wrong'));
    await expectError(bad, 401, 'invalid_client');
    expect(bad.headers.get('www-authenticate')).toContain('Basic');
    await expectError(await token(d, { grant_type: 'refresh_token', refresh_token: 'r', client_id: conf.client_id, client_secret: 'wrong' }), 401, 'invalid_client');
    await expectError(await token(d, { grant_type: 'refresh_token', refresh_token: 'r', client_id: conf.client_id }), 401, 'invalid_client');

    // The right secret, both ways: a real exchange, then a refresh.
    const c = await approve(d, s, conf);
    const ok = await token(d, { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri }, basic(conf.client_id, conf.client_secret));
    expect(ok.status).toBe(200);
    const pair = await ok.json();
    const post = await token(d, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: conf.client_id, client_secret: conf.client_secret });
    expect(post.status).toBe(200);
  });
});

describe('token endpoint: refresh_token and revocation', () => {
  it('rotates refresh tokens; the old one works within the grace; scope cannot grow', async () => {
    const c = await approve(d, s, client, { scopes: ['read', 'content'] });
    const first = await exchange(d, client.client_id, c);
    const r1 = await token(d, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(r1.status).toBe(200);
    expect(r1.headers.get('cache-control')).toBe('no-store');
    const second = await r1.json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.scope).toBe('read content');
    // A parallel refresh with the previous token (within 60 s) still works.
    const parallel = await token(d, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(parallel.status).toBe(200);
    expect((await mcp(d, second.access_token)).status).toBe(200);
    await expectError(await token(d, { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: client.client_id, scope: 'read publish' }), 400, 'invalid_scope');
    const narrower = await token(d, { grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: client.client_id, scope: 'read offline_access' });
    expect(narrower.status).toBe(200);
  });

  it('a refresh token reused within the grace gets the same successor, not a new fork (issue 22)', async () => {
    const c = await approve(d, s, client, { scopes: ['read'] });
    const first = await exchange(d, client.client_id, c);
    const refresh = async (rt: string) => {
      const res = await token(d, { grant_type: 'refresh_token', refresh_token: rt, client_id: client.client_id });
      expect(res.status).toBe(200);
      return res.json();
    };
    const answers = [await refresh(first.refresh_token), ...(await Promise.all([1, 2, 3].map(() => refresh(first.refresh_token))))];
    expect(new Set(answers.map((a) => a.refresh_token)).size).toBe(1);
    for (const a of answers) expect((await mcp(d, a.access_token)).status).toBe(200);
    // One live refresh token: the successor; it rotates as usual.
    const conn = (await d.app.db('oauth_tokens').where({ token_hash: sha256Hex(first.refresh_token) }).first()).connection_id;
    expect(await d.app.db('oauth_tokens').where({ connection_id: conn, kind: 'refresh' }).whereNull('rotated_at').pluck('token_hash')).toEqual([sha256Hex(answers[0].refresh_token)]);
    const third = await refresh(answers[0].refresh_token);
    expect(third.refresh_token).not.toBe(answers[0].refresh_token);
  });

  it('revocation (RFC 7009): 200 for unknown tokens, ends the connection for either token', async () => {
    const revoke = (fields: Record<string, string>) => fetch(`${d.url}/oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    const unknown = await revoke({ token: 'svc_ort_doesnotexist', client_id: client.client_id });
    expect(unknown.status).toBe(200);
    const c = await approve(d, s, client);
    const pair = await exchange(d, client.client_id, c);
    const other = await registerClient(d);
    expect((await revoke({ token: pair.access_token, client_id: other.client_id })).status).toBe(200);
    expect((await mcp(d, pair.access_token)).status).toBe(200); // another client's revoke does nothing
    expect((await revoke({ token: pair.access_token, client_id: client.client_id, token_type_hint: 'access_token' })).status).toBe(200);
    expect((await mcp(d, pair.access_token)).status).toBe(401);
    await expectError(await token(d, { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: client.client_id }), 400, 'invalid_grant');
    const noToken = await revoke({ client_id: client.client_id });
    expect(noToken.status).toBe(400);
    expect((await revoke({ token: 'x', client_id: 'cli_unknown' })).status).toBe(401);
  });
});

describe('lifetimes (the injected clock moves; the defaults apply)', () => {
  const MINUTE = 60_000;

  /** A daemon on a TestClock with a signed-in member and a registered client. */
  async function onClock() {
    const clock = new TestClock();
    const t = await startDaemon({ jobs: false, clock });
    const ws = await seedWorkspace(t.app);
    const u = await seedUser(t.app, ws);
    return { t, clock, session: await sessionFor(t, u.id), client: await registerClient(t) };
  }

  it('a code lives oauth.authorizationCodeTtl (10 minutes)', async () => {
    const { t, clock, session, client: cl } = await onClock();
    const [early, late] = [await approve(t, session, cl), await approve(t, session, cl)];
    const exchangeOf = (c: typeof early) => token(t, { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: c.redirectUri, client_id: cl.client_id });
    clock.advance(10 * MINUTE - 2000);
    expect((await exchangeOf(early)).status).toBe(200);
    clock.advance(4000);
    const body = await expectError(await exchangeOf(late), 400, 'invalid_grant');
    expect(body.error_description).toBe('The authorization code has expired; approve the connection again');
  });

  it('an access token lives an hour, then answers 401 on /api/mcp; a refresh gets a working one', async () => {
    const { t, clock, session, client: cl } = await onClock();
    const first = await exchange(t, cl.client_id, await approve(t, session, cl));
    clock.advance(59 * MINUTE);
    expect((await mcp(t, first.access_token)).status).toBe(200);
    clock.advance(2 * MINUTE);
    const res = await mcp(t, first.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    const r = await token(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: cl.client_id });
    expect(r.status).toBe(200);
    const second = await r.json();
    expect(second.expires_in).toBe(3600);
    expect((await mcp(t, second.access_token)).status).toBe(200);
  });

  it('a rotated refresh token works for 60 s; presented later it revokes the whole connection', async () => {
    const { t, clock, session, client: cl } = await onClock();
    const first = await exchange(t, cl.client_id, await approve(t, session, cl));
    const refresh = (rt: string) => token(t, { grant_type: 'refresh_token', refresh_token: rt, client_id: cl.client_id });
    const second = await (await refresh(first.refresh_token)).json();
    clock.advance(58_000);
    expect((await refresh(first.refresh_token)).status).toBe(200); // a parallel refresh, within the grace
    clock.advance(4000);
    const body = await expectError(await refresh(first.refresh_token), 400, 'invalid_grant');
    expect(body.error_description).toBe('This refresh token was already used; the connection is revoked for safety. Approve it again in the browser');
    expect((await mcp(t, second.access_token)).status).toBe(401);
    await expectError(await refresh(second.refresh_token), 400, 'invalid_grant');
  });
});
