import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDaemon } from '../helpers/daemon.js';
import { rpc, startPost, workspaceWithAdmin } from './helpers.js';

// Issue 22: an anonymous POST of a 5 MB batch was parsed and answered with one JSON-RPC error
// per element (a 45 MB answer). The headers decide first; a refused batch gets one error.

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const bigBatch = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ping(i))); // ~1.3 MB

const FIRST = '[{"jsonrpc":"2.0","id":1,"method":"ping"},';

let d: TestDaemon;
let auth: { Authorization: string };
beforeAll(async () => {
  const f = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': 2 } });
  d = f.d;
  auth = { Authorization: `Bearer ${await f.key(['read'])}` };
});

describe('/api/mcp refusals cost the daemon nothing of the body', () => {
  it.each([
    ['no token', {}, 401, 'unauthorized'],
    ['an unknown token', { Authorization: 'Bearer svc_live_not_a_key' }, 401, 'invalid_token'],
    ['a foreign Origin', { Origin: 'https://evil.example' }, 403, 'origin_not_allowed'],
  ])('%s: a big batch gets one small error, id null', async (_, headers, status, code) => {
    const res = await rpc(d, bigBatch, { ...(code === 'origin_not_allowed' ? auth : {}), ...headers });
    expect(res.status).toBe(status);
    const text = await res.text();
    expect(text.length).toBeLessThan(1000);
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code } } });
  });

  it('is answered before the body arrives when the headers already refuse it', async () => {
    const anonymous = await startPost(d, {}, FIRST, 5_000_000);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ id: null, error: { data: { code: 'unauthorized' } } });
    const origin = await startPost(d, { ...auth, Origin: 'https://evil.example' }, FIRST, 5_000_000);
    expect(origin.status).toBe(403);
  });

  it('a batch refused by the call budget gets one error, not one per request', async () => {
    const res = await rpc(d, Array.from({ length: 50 }, (_, i) => ping(i)), auth);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Too many MCP calls: at most \d+ per minute for this key or connection\. Retry in \d+ s\.$/), data: { code: 'rate_limited' } } });
  });
});
