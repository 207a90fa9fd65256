import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { PageClient, hidden } from './flow.js';

// oauth4webapi (panva) follows the RFCs to the letter and refuses what does not. It drives the
// whole flow here: RFC 9728 discovery from the origin and from /api/mcp, RFC 8414, RFC 7591
// registration, authorization code + PKCE through the real login and consent pages, RFC 9207
// iss check, token, a call on /api/mcp, refresh and RFC 7009 revocation.

const insecure = { [oauth.allowInsecureRequests]: true } as const; // the daemon listens on http://127.0.0.1 in tests

describe('a strict client (oauth4webapi) completes its flow', () => {
  it.each([
    ['from the origin, as a public client', 'origin', 'none'],
    ['from /api/mcp, as a confidential client (client_secret_basic)', 'endpoint', 'client_secret_basic'],
  ] as const)('%s', async (_label, start, method) => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app, { name: 'strict.example' });
    const user = await seedUser(d.app, ws, 'editor');

    // RFC 9728: the resource identifier the client starts from names itself in its document.
    const resource = new URL(start === 'origin' ? d.url : `${d.url}/api/mcp`);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
    expect(new URL(rs.resource).href).toBe(resource.href);
    const issuer = new URL(rs.authorization_servers![0]);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));

    const redirectUri = 'http://127.0.0.1:53682/callback';
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Strict Client', redirect_uris: [redirectUri], token_endpoint_auth_method: method, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: method };
    const auth = method === 'none' ? oauth.None() : oauth.ClientSecretBasic(registered.client_secret as string);

    // Authorization code with PKCE, through the real pages: sign-in form, then consent.
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, scope: 'read content', state, resource: resource.href,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    })) authorize.searchParams.set(k, v);
    const browser = new PageClient(d.url);
    const toLogin = await browser.get(authorize.href);
    expect(toLogin.status).toBe(302);
    const signedIn = await browser.signIn(user.email, user.password, new URL(toLogin.headers.get('location')!, d.url).searchParams.get('next')!);
    expect(signedIn.status).toBe(303);
    const consent = await browser.get(signedIn.headers.get('location')!);
    expect(consent.status).toBe(200);
    const page = await consent.text();
    expect(page).toContain('Strict Client wants to connect');
    const approved = await browser.post('/oauth/authorize', { csrf: hidden(page, 'csrf')!, request: hidden(page, 'request')!, workspace: ws.id, scope: ['read', 'content'], decision: 'approve' });
    expect(approved.status).toBe(303);
    const params = oauth.validateAuthResponse(as, client, new URL(approved.headers.get('location')!), state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { additionalParameters: { resource: resource.href }, ...insecure }),
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'read content' });

    const call = (token: string) =>
      oauth.protectedResourceRequest(token, 'POST', new URL(`${d.url}/api/mcp`), new Headers({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), insecure);
    const listed = await call(tokens.access_token);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain('get_site_profile');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, { additionalParameters: { resource: resource.href }, ...insecure }),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await call(refreshed.access_token)).status).toBe(200);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure));
    const after = await call(refreshed.access_token).catch((err: unknown) => err);
    expect(after).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((after as oauth.WWWAuthenticateChallengeError).response.status).toBe(401);
  });
});
