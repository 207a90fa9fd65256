import { describe, expect, it } from 'vitest';
import { rpc, workspaceWithAdmin } from './helpers.js';

// Issue 11: hostile input on /api/mcp is answered as bad input, never as a 5xx, an internal
// error (-32603) or a message with the SDK's "MCP error" prefix or a raw validation dump.

const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel', 'notifications/cancelled', 'tasks/get', 'no/such'];

const PARAMS: unknown[] = [
  null, 0, -1, 1e308, '', 'x'.repeat(70_000), [], [1, 2], {}, { a: { b: { c: [null] } } }, '\u0000',
  { uri: 123 }, { uri: 'article://' }, { uri: 'article://%' }, { uri: 'article://a/b' }, { uri: `article://${'%41'.repeat(1000)}` },
  { protocolVersion: 5, capabilities: [], clientInfo: 'x' },
  { name: 'create_article', arguments: { title: 't', secondaryKeywords: Array(5000).fill('k') } },
  { name: 'list_articles', arguments: null },
  { name: 'get_article', arguments: { id: ['x'] } },
  { name: 'update_article', arguments: { slug: 'x', title: '' } },
  { name: 'publish_article', arguments: { id: 'x', to: 'ftp' } },
  { name: 'write_seo_article', arguments: { topic: 1 } },
  { name: 'write_seo_article' },
];

describe('MCP: hostile bodies', () => {
  it('get a 4xx or a JSON-RPC answer in our words, never a 5xx', async () => {
    const { d, key } = await workspaceWithAdmin();
    const auth = { Authorization: `Bearer ${await key()}`, 'MCP-Protocol-Version': '2025-03-26' };
    const bad: string[] = [];
    let sent = 0;
    for (const method of METHODS) {
      const bodies: unknown[] = PARAMS.map((params, i) => ({ jsonrpc: '2.0', id: i, method, params }));
      bodies.push(bodies.slice(0, 10)); // and a batch of them
      for (const body of bodies) {
        const res = await rpc(d, body, auth);
        const text = await res.text();
        sent++;
        if (res.status >= 500 || /MCP error|-32603|Internal error|"expected":/.test(text)) bad.push(`${res.status} ${JSON.stringify(body).slice(0, 120)} -> ${text.slice(0, 200)}`);
      }
    }
    expect(sent).toBe(METHODS.length * (PARAMS.length + 1));
    expect(bad).toEqual([]);
  }, 60_000);
});
