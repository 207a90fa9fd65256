import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { register } from './flow.js';

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

describe('metadata documents', () => {
  it('serves both protected-resource URLs, each naming its own resource (RFC 9728 3.3), and the authorization-server document, with one issuer', async () => {
    const a = await fetch(`${d.url}/.well-known/oauth-protected-resource`);
    const b = await fetch(`${d.url}/.well-known/oauth-protected-resource/api/mcp`);
    const as = await fetch(`${d.url}/.well-known/oauth-authorization-server`);
    for (const r of [a, b, as]) expect(r.status).toBe(200);
    const origin = OAuthProtectedResourceMetadataSchema.parse(await a.json());
    const pr = OAuthProtectedResourceMetadataSchema.parse(await b.json());
    expect(origin.resource).toBe(d.url);
    expect(origin).toEqual({ ...pr, resource: d.url });
    const meta = OAuthMetadataSchema.parse(await as.json());
    expect(meta.issuer).toBe(d.url);
    expect(meta.issuer.endsWith('/')).toBe(false);
    expect(pr.authorization_servers).toEqual([meta.issuer]);
    expect(pr.resource).toBe(`${d.url}/api/mcp`);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic', 'client_secret_post']);
    expect(meta.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['read', 'content', 'publish', 'offline_access']));
    for (const k of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const) {
      expect(String(meta[k]).startsWith(`${d.url}/oauth/`)).toBe(true);
    }
  });

  it('answers CORS on metadata, registration, token and revocation (preflight too)', async () => {
    const origin = { Origin: 'http://localhost:6274' };
    for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server']) {
      const r = await fetch(d.url + p, { headers: origin });
      expect(r.headers.get('access-control-allow-origin'), p).toBe('*');
    }
    for (const p of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const pre = await fetch(d.url + p, { method: 'OPTIONS', headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
      expect(pre.status, p).toBeLessThan(300);
      expect(pre.headers.get('access-control-allow-origin'), p).toBe('*');
      expect(pre.headers.get('access-control-allow-methods'), p).toContain('POST');
      const r = await fetch(d.url + p, { method: 'POST', headers: { ...origin, 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(r.headers.get('access-control-allow-origin'), p).toBe('*');
    }
    // /api/mcp's own CORS and Origin rules are tested with the MCP endpoint; here: the challenge.
    const unauth = await fetch(`${d.url}/api/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toContain(`resource_metadata="${d.url}/.well-known/oauth-protected-resource/api/mcp"`);
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it.each([
    ['https', 'https://app.example.com/oauth/callback'],
    ['loopback http, any port', 'http://127.0.0.1:53682/callback'],
    ['localhost http', 'http://localhost:3000/cb'],
    ['IPv6 loopback', 'http://[::1]:8080/cb'],
    ['private-use scheme (Cursor)', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
    ['private-use scheme (VS Code)', 'vscode://vscode.github-authentication/did-authenticate'],
  ])('accepts %s', async (_label, uri) => {
    const res = await register(d, { redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect((await res.json()).redirect_uris).toEqual([uri]);
  });

  it.each([
    ['http on a public host', 'http://app.example.com/cb'],
    ['not a URL', 'not a url'],
    ['javascript:', 'javascript:alert(1)'],
    ['a fragment', 'https://app.example.com/cb#frag'],
    ['data:', 'data:text/html,hi'],
  ])('refuses %s with invalid_redirect_uri', async (_label, uri) => {
    const res = await register(d, { redirect_uris: [uri] });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_redirect_uri');
    expect(typeof body.error_description).toBe('string');
  });

  it('refuses bad metadata with invalid_client_metadata, and a non-object body', async () => {
    const r1 = await register(d, { token_endpoint_auth_method: 'private_key_jwt' });
    expect(r1.status).toBe(400);
    expect((await r1.json()).error).toBe('invalid_client_metadata');
    const r2 = await register(d, { grant_types: ['client_credentials'] });
    expect((await r2.json()).error).toBe('invalid_client_metadata');
    const r3 = await fetch(`${d.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1,2]' });
    expect(r3.status).toBe(400);
    expect((await r3.json()).error).toBe('invalid_client_metadata');
    const r4 = await register(d, { redirect_uris: [] });
    expect((await r4.json()).error).toBe('invalid_redirect_uri');
  });

  it('ignores unknown metadata and echoes the rest without nulls', async () => {
    const res = await register(d, { software_statement_extra: 'x', frobnicate: { a: 1 }, client_uri: 'https://agent.example', scope: 'read content' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).not.toHaveProperty('frobnicate');
    expect(body).not.toHaveProperty('software_statement_extra');
    expect(body).toMatchObject({ client_name: 'Proto Agent', client_uri: 'https://agent.example', scope: 'read content', token_endpoint_auth_method: 'none' });
    expect(body.client_id).toMatch(/\S/);
    expect(typeof body.client_id_issued_at).toBe('number');
    expect(body).not.toHaveProperty('client_secret');
    expect(JSON.stringify(body)).not.toContain('null');
  });

  it('gives a confidential client a secret (client_secret_basic is the RFC default)', async () => {
    const res = await register(d, { token_endpoint_auth_method: undefined });
    const body = await res.json();
    expect(body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(body.client_secret).toMatch(/\S{20,}/);
    expect(body.client_secret_expires_at).toBe(0);
  });
});
