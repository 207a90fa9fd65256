import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { PG_URL } from '../helpers/env.js';

describe('OAuth endpoints: bad input is invalid_request, never server_error', () => {
  it('malformed JSON is refused without echoing the parser message', async () => {
    const d = await startDaemon({ jobs: false });
    const res = await fetch(`${d.url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The request body could not be parsed' });
  });

  it('a NUL character in client_id, client metadata or the authorize query is a client error', async () => {
    const d = await startDaemon({ jobs: false });
    const token = await fetch(`${d.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&client_id=a%00&code=x' });
    const register = await fetch(`${d.url}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/cb'], client_name: 'a\u0000' }),
    });
    const authorize = await fetch(`${d.url}/oauth/authorize?response_type=code&client_id=a%00&redirect_uri=http://127.0.0.1:9/cb&code_challenge=abc&code_challenge_method=S256`, { redirect: 'manual' });
    for (const [name, res] of Object.entries({ token, register, authorize })) expect(res.status, name).toBeLessThan(500);
    if (PG_URL) {
      for (const res of [token, register]) expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'Text may not contain the NUL character (U+0000)' });
      expect(authorize.status).toBe(400);
      expect(await authorize.text()).toContain('Text may not contain the NUL character (U+0000)');
    }
  });
});
