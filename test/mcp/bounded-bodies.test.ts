import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../src/mcp/endpoint.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { rpc, startPost, workspaceWithAdmin } from './helpers.js';

// Refused work costs nothing: each POST is charged a call before its body is read, a body too
// deep is refused from a scan of its bytes (never parsed), and refused bodies count.

const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

let d: TestDaemon;
let key: (scopes?: Parameters<Awaited<ReturnType<typeof workspaceWithAdmin>>['key']>[0]) => Promise<string>;
beforeAll(async () => {
  const f = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': 3 } });
  d = f.d;
  key = f.key;
});

const bearer = async () => ({ Authorization: `Bearer ${await key(['read'])}` });

describe('/api/mcp: refused bodies are counted, and past the budget none is read', () => {
  it('refuses a body nested deeper than the limit by name, and serves one at the limit', async () => {
    const auth = await bearer();
    const tooDeep = await rpc(d, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${nested(MAX_BODY_DEPTH)}}}`, auth);
    expect(tooDeep.status).toBe(400);
    const refused = await tooDeep.json();
    expect(refused).toMatchObject({ id: null, error: { code: -32600, data: { code: 'nesting_too_deep' } } });
    expect(refused.error.message).toContain(`more than ${MAX_BODY_DEPTH} levels deep`);
    // Brackets inside strings (escaped quotes included) are text, not nesting.
    const inString = JSON.stringify({ ...ping, params: { _meta: { note: `\\"${nested(200)}` } } });
    const atLimit = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"a":${nested(MAX_BODY_DEPTH - 3)}}}}`;
    expect((await rpc(d, inString, auth)).status).toBe(200);
    expect((await (await rpc(d, atLimit, auth)).json()).error?.data?.code).not.toBe('nesting_too_deep');
  });

  it('counts every refused body against the budget: too deep, not JSON, not JSON-RPC', async () => {
    const auth = await bearer();
    expect((await rpc(d, nested(10_000), auth)).status).toBe(400);
    expect((await rpc(d, '{"jsonrpc":', auth)).status).toBe(400);
    expect((await rpc(d, { hello: 'world' }, auth)).status).toBe(400);
    const next = await rpc(d, ping, auth);
    expect(next.status).toBe(429);
    expect(next.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('past the budget answers 429 before the body arrives: a 4.8 MB nested body is never read', async () => {
    const auth = await bearer();
    for (let i = 0; i < 3; i++) expect((await rpc(d, ping, auth)).status).toBe(200);
    // Only the first bytes are ever sent: an answer proves the daemon did not wait for (or parse) the rest.
    const res = await startPost(d, auth, '['.repeat(64 * 1024), 4_800_000);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Too many MCP calls: at most \d+ per minute for this key or connection\. Retry in \d+ s\.$/), data: { code: 'rate_limited' } } });
  });

  it('a 4.8 MB nested body within the budget is refused from its bytes, not parsed, while a concurrent call is served', async () => {
    const [auth, other] = [await bearer(), await bearer()];
    const big = rpc(d, nested(2_400_000), auth);
    const served = await rpc(d, ping, other);
    expect(served.status).toBe(200);
    const res = await big;
    expect(res.status).toBe(400);
    expect((await res.json()).error.data.code).toBe('nesting_too_deep');
  });
});
