import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${d.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('discovery metadata', () => {
  it('serves RFC 9728 protected resource metadata at the root and under /api/mcp, with CORS', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const res = await fetch(d.url + path, { headers: { Origin: 'https://inspector.example' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const doc = OAuthProtectedResourceMetadataSchema.parse(await res.json());
      expect(doc.resource).toBe(`${d.url}/api/mcp`);
      expect(doc.authorization_servers).toEqual([d.url]);
      expect(doc.scopes_supported).toEqual(['read', 'content', 'publish']);
    }
  });

  it('serves RFC 8414 metadata with the same issuer (no trailing slash) and every interop point', async () => {
    const res = await fetch(`${d.url}/.well-known/oauth-authorization-server`, { headers: { Origin: 'https://inspector.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const doc = OAuthMetadataSchema.parse(await res.json());
    expect(doc.issuer).toBe(d.url);
    expect(doc.issuer.endsWith('/')).toBe(false);
    expect(doc).toMatchObject({
      authorization_endpoint: `${d.url}/oauth/authorize`,
      token_endpoint: `${d.url}/oauth/token`,
      registration_endpoint: `${d.url}/oauth/register`,
      revocation_endpoint: `${d.url}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(doc.scopes_supported).toContain('offline_access');
  });

  it('answers CORS preflights on registration, token and revocation', async () => {
    for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
      const res = await fetch(d.url + path, { method: 'OPTIONS', headers: { Origin: 'https://inspector.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    }
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client, echoes its metadata, drops unknown fields and omits absent ones', async () => {
    const res = await post('/oauth/register', {
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-mcp/callback', 'http://127.0.0.1:33418/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      some_vendor_extension: { x: 1 },
    }, { Origin: 'https://inspector.example' });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = await res.json();
    expect(body).toMatchObject({ client_name: 'Cursor', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
    expect(body.client_id).toMatch(/^cli_/);
    expect(body.client_secret).toBeUndefined();
    expect(body.some_vendor_extension).toBeUndefined();
    expect(Object.values(body)).not.toContain(null);
    expect('logo_uri' in body).toBe(false);
  });

  it('gives confidential clients a secret (client_secret_basic is the RFC default)', async () => {
    const body = await (await post('/oauth/register', { redirect_uris: ['https://app.example/cb'] })).json();
    expect(body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(body.client_secret).toMatch(/^sec_/);
    expect(body.client_secret_expires_at).toBe(0);
  });

  it('accepts https, loopback http and private-use schemes; refuses others with invalid_redirect_uri', async () => {
    for (const uri of ['https://a.example/cb', 'http://localhost:1234/cb', 'http://[::1]/cb', 'vscode://vscode.github-authentication/did-authenticate', 'com.example.app:/oauth2redirect']) {
      expect((await post('/oauth/register', { redirect_uris: [uri], token_endpoint_auth_method: 'none' })).status, uri).toBe(201);
    }
    for (const uri of ['http://evil.example/cb', 'javascript:alert(1)', 'https://a.example/cb#frag', 'not a url', 'data:text/html,hi', 'file:///etc/passwd']) {
      const res = await post('/oauth/register', { redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(res.status, uri).toBe(400);
      const body = await res.json();
      expect(body.error, uri).toBe('invalid_redirect_uri');
      expect(typeof body.error_description).toBe('string');
    }
  });

  it('refuses bad metadata with invalid_client_metadata', async () => {
    const cases = [
      { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] },
      { redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
    ];
    for (const c of cases) {
      const res = await post('/oauth/register', c);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_client_metadata');
    }
    const res = await fetch(`${d.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{not json' });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
    const arr = await post('/oauth/register', []);
    expect((await arr.json()).error).toBe('invalid_client_metadata');
  });
});
