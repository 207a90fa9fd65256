import { beforeAll, describe, expect, it } from 'vitest';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { register } from './flow.js';

let d: TestDaemon;
beforeAll(async () => {
  d = await startDaemon({ jobs: false });
});

async function expectRefused(res: Response, error: string, description: string) {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error, error_description: description });
}

describe('registration limits (RFC 7591 errors)', () => {
  const uri = (i: number, length = 40) => `https://app.example/${String(i).padEnd(length - 20, 'p')}`;

  it('takes up to 10 redirect URIs of up to 512 characters', async () => {
    const ok = await register(d, { redirect_uris: Array.from({ length: 10 }, (_, i) => uri(i, 512)) });
    expect(ok.status).toBe(201);
    await expectRefused(await register(d, { redirect_uris: Array.from({ length: 11 }, (_, i) => uri(i)) }), 'invalid_redirect_uri', 'redirect_uris takes at most 10 URIs');
    await expectRefused(await register(d, { redirect_uris: [uri(1, 513)] }), 'invalid_redirect_uri', 'A redirect URI is longer than 512 characters');
  });

  it('bounds the whole metadata at 8 KB of JSON, and refuses control characters in the name', async () => {
    const jwks = { keys: [{ kty: 'RSA', n: 'x'.repeat(9000), e: 'AQAB' }] };
    const res = await register(d, { jwks });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/^The client metadata is \d+ bytes of JSON; at most 8192 are accepted$/);
    await expectRefused(await register(d, { client_name: 'a\u0000b' }), 'invalid_client_metadata', 'client_name may not contain control characters');
    await expectRefused(await register(d, { client_name: 'x'.repeat(201) }), 'invalid_client_metadata', 'client_name is longer than 200 characters');
  });

  it('treats optional metadata sent as null as absent, and echoes no nulls', async () => {
    const nulls = { client_uri: null, logo_uri: null, scope: null, tos_uri: null, policy_uri: null, jwks_uri: null, contacts: null, software_id: null, software_version: null, grant_types: null, response_types: null };
    const res = await register(d, { ...nulls, client_name: 'Null Sender' });
    expect(res.status).toBe(201);
    const body = await res.json();
    for (const k of Object.keys(nulls)) expect(body, k).not.toHaveProperty(k);
    expect(body).toMatchObject({ client_name: 'Null Sender', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:9999/cb'] });
    expect(JSON.stringify(body)).not.toContain('null');
    // A required field sent as null is still missing.
    const missing = await register(d, { redirect_uris: null });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('invalid_redirect_uri');
  });

  it('stores the redirect URIs once: a registration takes about the size of its metadata', async () => {
    const uris = Array.from({ length: 10 }, (_, i) => uri(i, 500));
    const res = await register(d, { redirect_uris: uris, client_uri: 'https://agent.example', scope: 'read' });
    expect(res.status).toBe(201);
    const { client_id } = await res.json();
    const row = await d.app.db('oauth_clients').where({ id: client_id }).first();
    expect(JSON.parse(row.redirect_uris)).toEqual(uris);
    expect(row.metadata).not.toContain('app.example');
    expect(JSON.parse(row.metadata)).toEqual({ client_uri: 'https://agent.example', scope: 'read', token_endpoint_auth_method: 'none' });
    const stored = Object.values(row).reduce<number>((n, v) => n + String(v ?? '').length, 0);
    expect(stored).toBeLessThan(JSON.stringify(uris).length + 400);
  });
});
