import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { createApiKey } from '../../src/auth/api-keys.js';

describe('OAuth endpoints: bad input is invalid_request, never server_error', () => {
  it('malformed JSON is refused without echoing the parser message', async () => {
    const d = await startDaemon({ jobs: false });
    const res = await fetch(`${d.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The request body could not be parsed' });
  });

  it('a compressed or mislabelled body is 415 with Accept-Encoding: identity, in each surface\'s format', async () => {
    const d = await startDaemon({ jobs: false });
    const gz = gzipSync('grant_type=refresh_token&refresh_token=x&client_id=cli_x');
    for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
      for (const [coding, body] of [['gzip', gz], ['br', 'a=1'], ['x-unknown', 'a=1']] as const) {
        const res = await fetch(`${d.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': coding }, body });
        expect(res.status, `${path} ${coding}`).toBe(415);
        expect(res.headers.get('accept-encoding')).toBe('identity');
        expect(await res.json()).toEqual({ error: 'invalid_request', error_description: `Content-Encoding "${coding}" is not supported: send the body uncompressed` });
      }
    }
    const login = await fetch(`${d.url}/login`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'deflate' }, body: 'a=1' });
    expect(login.status).toBe(415);
    expect(login.headers.get('content-type')).toContain('text/html');

    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws);
    const { key } = await createApiKey(d.app, { workspaceId: ws.id, userId: user.id, name: 'enc', scopes: ['read'] });
    const mcp = await fetch(`${d.url}/api/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Encoding': 'gzip' },
      body: gzipSync('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
    });
    expect(mcp.status).toBe(415);
    expect(mcp.headers.get('accept-encoding')).toBe('identity');
    expect((await mcp.json()).error).toMatchObject({ message: 'Content-Encoding "gzip" is not supported: send the body uncompressed', data: { code: 'unsupported_content_encoding' } });
  });

  it('a NUL character in client_id, client metadata or the authorize query: the same exact 4xx on SQLite and PostgreSQL', async () => {
    const d = await startDaemon({ jobs: false });
    const token = await fetch(`${d.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&client_id=a%00&code=x' });
    expect(token.status).toBe(401);
    expect(await token.json()).toEqual({ error: 'invalid_client', error_description: 'Unknown client: register again' });

    const register = await fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 'a\u0000' }),
    });
    expect(register.status).toBe(400);
    expect(await register.json()).toEqual({ error: 'invalid_client_metadata', error_description: 'client_name may not contain control characters' });

    const authorize = await fetch(`${d.url}/oauth/authorize?response_type=code&client_id=a%00&redirect_uri=http://127.0.0.1:9/cb&code_challenge=abc&code_challenge_method=S256`, { redirect: 'manual' });
    expect(authorize.status).toBe(400);
    expect(authorize.headers.get('location')).toBeNull();
    expect(await authorize.text()).toContain('<h1>This connection cannot continue</h1><p class="sub">This application is not registered here (any more). Start connecting again from the app.</p>');
  });
});
