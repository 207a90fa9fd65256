import { describe, expect, it } from 'vitest';
import { rpc, toolCall, workspaceWithAdmin } from './helpers.js';

// Issue 10 §2: JSON-RPC batches do not multiply the call budget, exist only in the protocol
// versions that had them (2025-03-26; removed in 2025-06-18), and an empty batch is invalid.

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const batchOf = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ping(from + i));
type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string; data?: { code: string } } };

async function budgetDaemon(limit: number) {
  const f = await workspaceWithAdmin({ overrides: { 'mcp.rateLimitPerMinute': limit } });
  const auth = { Authorization: `Bearer ${await f.key(['read'])}` };
  return { ...f, send: (body: unknown, headers: Record<string, string> = {}) => rpc(f.d, body, { ...auth, ...headers }) };
}

describe('JSON-RPC batches and the call budget', () => {
  it('charges every request of a batch, all or none, and refuses a batch the budget cannot hold', async () => {
    const { send } = await budgetDaemon(5);
    const first = await send(batchOf(3, 1));
    expect(first.status).toBe(200);
    expect(((await first.json()) as Answer[]).map((a) => a.id)).toEqual([1, 2, 3]);
    const second = await send(batchOf(3, 4));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A refusal of a batch as a whole answers once, id null (issue 22: never one error per element).
    expect(await second.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Too many MCP calls: at most \d+ per minute for this key or connection\. Retry in \d+ s\.$/), data: { code: 'rate_limited' } } });
    // The refused batch cost one call (every POST does before its body is read), not three: one single call still fits.
    expect((await send(ping(7))).status).toBe(200);
    expect((await send(ping(8))).status).toBe(429);
  });

  it('notifications count like requests (issue 22: posts of notifications alone skipped the budget); a batch larger than the whole budget is refused', async () => {
    const { send } = await budgetDaemon(5);
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const mixed = await send([initialized, ping(1)]);
    expect(mixed.status).toBe(200);
    expect(await mixed.json()).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect((await send(batchOf(4, 10))).status).toBe(429); // 2 + 4 > 5; the refused POST costs 1: 3
    expect((await send([initialized, initialized])).status).toBe(202); // 5
    const refused = await send(initialized);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ id: null, error: { data: { code: 'rate_limited' } } });
    expect((await send(ping(30))).status).toBe(429);
  });

  it('parallel batches and single calls never get more than the budget through', async () => {
    const { send } = await budgetDaemon(20);
    const posts = [...Array.from({ length: 5 }, (_, i) => batchOf(10, i * 100)), ...Array.from({ length: 10 }, (_, i) => toolCall('get_site_profile', {}, `s${i}`))];
    const answers = await Promise.all(posts.map(async (body) => ({ status: (await send(body)).status, calls: Array.isArray(body) ? body.length : 1 })));
    const served = answers.filter((a) => a.status === 200).reduce((n, a) => n + a.calls, 0);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    expect(served).toBeLessThanOrEqual(20);
    expect(served).toBeGreaterThanOrEqual(10);
  });
});

describe('JSON-RPC batches and protocol versions', () => {
  const refused = (version: string) => ({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: `Invalid Request: JSON-RPC batches are not part of protocol version ${version} (removed in 2025-06-18); send one message per POST`,
      data: { code: 'batch_not_supported' },
    },
  });

  it('refuses a batch when MCP-Protocol-Version is 2025-06-18 or later, and charges one call for it, not one per message', async () => {
    const { send } = await budgetDaemon(4);
    for (const version of ['2025-06-18', '2025-11-25']) {
      const res = await send(batchOf(2), { 'MCP-Protocol-Version': version });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(refused(version));
    }
    expect((await send(ping(1), { 'MCP-Protocol-Version': '2025-11-25' })).status).toBe(200);
    expect((await send(ping(2), { 'MCP-Protocol-Version': '2025-11-25' })).status).toBe(200);
    expect((await send(ping(3), { 'MCP-Protocol-Version': '2025-11-25' })).status).toBe(429);
  });

  it('reads the version from an initialize inside the batch when there is no header', async () => {
    const { send } = await budgetDaemon(10);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } };
    const res = await send([init, ping(2)]);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(refused('2025-06-18'));
  });

  it('serves batches for 2025-03-26, and without a header (the spec says: assume 2025-03-26)', async () => {
    const { send } = await budgetDaemon(10);
    for (const headers of [{ 'MCP-Protocol-Version': '2025-03-26' }, {}] as Array<Record<string, string>>) {
      const res = await send([ping('a'), toolCall('get_site_profile', {}, 'b')], headers);
      expect(res.status).toBe(200);
      const answers = (await res.json()) as Answer[];
      expect(answers.map((a) => a.id)).toEqual(['a', 'b']);
      expect(answers[1].result).toMatchObject({ content: [{ type: 'text' }] });
    }
  });

  it('an empty batch, an invalid element, more than 100 messages, a repeated id or an initialize are -32600 and cost one call each', async () => {
    const { send } = await budgetDaemon(6);
    const invalid = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${message}`, data: { code: 'invalid_request' } } });
    const empty = await send([]);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual(invalid('an empty batch holds no message; send at least one'));
    const bad = await send([ping(1), { jsonrpc: '1.0', id: 2, method: 'ping' }]);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual(invalid('message 2 of the batch is not a JSON-RPC 2.0 request, notification or response'));
    const long = await send(batchOf(101));
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual(invalid('a batch may hold at most 100 messages'));
    // A repeated id would run twice and be answered once; initialize must come alone (2025-03-26).
    const twice = await send([toolCall('get_site_profile', {}, 1), toolCall('list_articles', {}, 1)]);
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual(invalid('request id 1 appears more than once in the batch'));
    const init = { jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } } };
    const withInit = await send([init]);
    expect(withInit.status).toBe(400);
    expect(await withInit.json()).toEqual(invalid('initialize must be sent on its own, not in a batch'));
    expect((await send(ping(3))).status).toBe(200);
    expect((await send(ping(4))).status).toBe(429);
  });
});
