import { describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { resolveOAuthAccessToken } from '../../src/oauth/resolve.js';
import { Browserless, type Registered, approve, form, pkce, register, token } from './helpers.js';

/** A daemon, a signed-in member and a registered client, ready to approve. */
async function setup(overrides: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  const d = await startDaemon({ jobs: false, overrides });
  const ws = await seedWorkspace(d.app);
  const user = await seedUser(d.app, ws, 'editor');
  const b = new Browserless(d.url);
  await b.signIn(user.email, user.password);
  const client = await register(d.url, meta);
  const grant = async (scopes?: string[]) => {
    const p = pkce();
    const loc = await approve(b, client, { challenge: p.challenge, workspaceId: ws.id, scopes });
    return { code: loc.searchParams.get('code')!, verifier: p.verifier };
  };
  return { d, ws, user, b, client, grant };
}

const exchange = (d: TestDaemon, client: Registered, code: string, verifier: string, extra: Record<string, string> = {}) =>
  token(d.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: client.redirect, client_id: client.client_id, ...extra });

describe('/oauth/token: authorization_code', () => {
  it('issues Bearer tokens with a refresh token, the granted scope and Cache-Control: no-store', async () => {
    const { d, client, grant, ws } = await setup();
    const { code, verifier } = await grant(['read']);
    const res = await exchange(d, client, code, verifier, { resource: `${d.url}/api/mcp` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    expect(res.body.refresh_token).toMatch(/^svc_ort_/);
    const principal = await resolveOAuthAccessToken(d.app, res.body.access_token);
    expect(principal).toMatchObject({ kind: 'oauth', workspaceId: ws.id, scopes: ['read'], label: 'Proto Client' });
  });

  it('refuses a wrong PKCE verifier and a missing one', async () => {
    const { d, client, grant } = await setup();
    const { code } = await grant();
    const wrong = await exchange(d, client, code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'PKCE verification failed: code_verifier does not match the code_challenge' });
    const missing = await token(d.url, { grant_type: 'authorization_code', code, redirect_uri: client.redirect, client_id: client.client_id });
    expect(missing.body.error).toBe('invalid_request');
  });

  it('refuses a redirect_uri different from the authorization request', async () => {
    const { d, client, grant } = await setup();
    const { code, verifier } = await grant();
    const res = await exchange(d, client, code, verifier, { redirect_uri: 'http://127.0.0.1:9/other' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toContain('redirect_uri');
  });

  it('refuses a reused code and revokes what the first exchange issued', async () => {
    const { d, client, grant } = await setup();
    const { code, verifier } = await grant();
    const first = await exchange(d, client, code, verifier);
    expect(first.status).toBe(200);
    expect(await resolveOAuthAccessToken(d.app, first.body.access_token)).not.toBeNull();
    const second = await exchange(d, client, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect(await resolveOAuthAccessToken(d.app, first.body.access_token)).toBeNull();
    const refresh = await token(d.url, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.client_id });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refuses an expired code', async () => {
    const { d, client, grant } = await setup({ 'oauth.authorizationCodeTtl': 1 });
    const { code, verifier } = await grant();
    await new Promise((r) => setTimeout(r, 20));
    const res = await exchange(d, client, code, verifier);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code has expired; approve the connection again' });
  });

  it('refuses a wrong resource, an unknown grant type and a code of another client', async () => {
    const { d, client, grant } = await setup();
    const { code, verifier } = await grant();
    expect((await exchange(d, client, code, verifier, { resource: 'https://x.example/api/mcp' })).body.error).toBe('invalid_target');
    expect((await token(d.url, { grant_type: 'password', client_id: client.client_id })).body.error).toBe('unsupported_grant_type');
    const otherClient = await register(d.url);
    expect((await exchange(d, otherClient, code, verifier)).body.error).toBe('invalid_grant');
  });

  it('answers invalid_client with 401 for unknown clients and wrong secrets', async () => {
    const { d, client, grant } = await setup({}, { token_endpoint_auth_method: 'client_secret_basic' });
    const unknown = await token(d.url, { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', client_id: 'cli_nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const basic = (secret: string) => ({ Authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}` });
    const { code, verifier } = await grant();
    const wrong = await token(d.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: client.redirect }, basic('wrong'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    const noSecret = await token(d.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: client.redirect, client_id: client.client_id });
    expect(noSecret.status).toBe(401);
    // client_secret_basic and client_secret_post both work for a confidential client.
    const ok = await token(d.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: client.redirect }, basic(client.client_secret!));
    expect(ok.status).toBe(200);
    const post = await token(d.url, { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, client_id: client.client_id, client_secret: client.client_secret! });
    expect(post.status).toBe(200);
  });
});

describe('/oauth/token: refresh_token', () => {
  it('rotates; the previous token works within the grace period (parallel refresh)', async () => {
    const { d, client, grant } = await setup();
    const { code, verifier } = await grant();
    const first = (await exchange(d, client, code, verifier)).body;
    const a = await token(d.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id, scope: 'read offline_access' });
    expect(a.status).toBe(200);
    expect(a.body.refresh_token).not.toBe(first.refresh_token);
    const b = await token(d.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(b.status).toBe(200);
    expect(await resolveOAuthAccessToken(d.app, a.body.access_token)).not.toBeNull();
    expect(await resolveOAuthAccessToken(d.app, b.body.access_token)).not.toBeNull();
    const widen = await token(d.url, { grant_type: 'refresh_token', refresh_token: a.body.refresh_token, client_id: client.client_id, scope: 'publish' });
    expect(widen.body.error).toBe('invalid_scope');
  });

  it('revokes the whole connection when a rotated token is replayed after the grace period', async () => {
    const { d, client, grant } = await setup({ 'oauth.refreshTokenGrace': 1 });
    const { code, verifier } = await grant();
    const first = (await exchange(d, client, code, verifier)).body;
    const next = (await token(d.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id })).body;
    await new Promise((r) => setTimeout(r, 20));
    const replay = await token(d.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.client_id });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(replay.body.error_description).toContain('revoked');
    expect(await resolveOAuthAccessToken(d.app, next.access_token)).toBeNull();
    const legit = await token(d.url, { grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: client.client_id });
    expect(legit.body.error).toBe('invalid_grant');
  });
});

describe('/oauth/revoke (RFC 7009)', () => {
  it('revokes the connection by access token, answers 200 for unknown tokens, and ignores tokens of other clients', async () => {
    const { d, client, grant } = await setup();
    const { code, verifier } = await grant();
    const t = (await exchange(d, client, code, verifier)).body;
    const stranger = await register(d.url);
    expect((await fetch(`${d.url}/oauth/revoke`, form({ token: t.access_token, client_id: stranger.client_id }))).status).toBe(200);
    expect(await resolveOAuthAccessToken(d.app, t.access_token)).not.toBeNull();
    expect((await fetch(`${d.url}/oauth/revoke`, form({ token: 'svc_oat_unknown', client_id: client.client_id }))).status).toBe(200);
    const res = await fetch(`${d.url}/oauth/revoke`, form({ token: t.access_token, client_id: client.client_id }));
    expect(res.status).toBe(200);
    expect(await resolveOAuthAccessToken(d.app, t.access_token)).toBeNull();
    expect((await token(d.url, { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id: client.client_id })).body.error).toBe('invalid_grant');
    const missing = await fetch(`${d.url}/oauth/revoke`, form({ client_id: client.client_id }));
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('invalid_request');
  });
});
