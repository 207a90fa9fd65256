import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';
import { rpc, toolCall, workspaceWithAdmin } from './helpers.js';

describe('MCP: bad input is refused as such, never as an internal error', () => {
  it('a NUL character in a tool argument is a tool error naming the problem (PostgreSQL refuses it)', async () => {
    const { d, key } = await workspaceWithAdmin();
    const res = await rpc(d, toolCall('get_article', { slug: 'a\u0000b' }), { Authorization: `Bearer ${await key()}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).not.toBe('Internal error');
    if (PG_URL) expect(body.result.content[0].text).toBe('Text may not contain the NUL character (U+0000)');
  });

  it('an article:// URI with bad percent-encoding is invalid params, not an internal error', async () => {
    const { d, key } = await workspaceWithAdmin();
    const res = await rpc(d, { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'article://%ff' } }, { Authorization: `Bearer ${await key()}` });
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('The article URI is not valid percent-encoding');
  });
});
