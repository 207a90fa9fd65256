import { describe, expect, it } from 'vitest';
import { rpc, toolCall, workspaceWithAdmin } from './helpers.js';

// Issue 10 §3: every bad input gets the same exact answer on SQLite and PostgreSQL.
describe('MCP: bad input is refused as such, never as an internal error, alike on every database', () => {
  it('a NUL character in a tool argument is a tool error naming the field, and spends nothing', async () => {
    const { d, key } = await workspaceWithAdmin();
    const auth = { Authorization: `Bearer ${await key()}` };
    const get = await rpc(d, toolCall('get_article', { slug: 'a\u0000b' }, 1), auth);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { isError: true, content: [{ type: 'text', text: 'Invalid arguments: slug: text may not contain the NUL character (U+0000)' }] },
    });
    const create = await rpc(d, toolCall('create_article', { title: 'a\u0000b', bodyMarkdown: 'x' }, 2), auth);
    expect(create.status).toBe(200);
    expect((await create.json()).result).toEqual({ isError: true, content: [{ type: 'text', text: 'Invalid article: title: text may not contain the NUL character (U+0000)' }] });
    const profile = await (await rpc(d, toolCall('get_site_profile', {}, 3), auth)).json();
    expect(profile.result.content[0].text).toContain('\nArticles: 0/10\n');
  });

  it('an article:// URI with bad percent-encoding or a NUL is -32602, one too long to match -32002, never a 500', async () => {
    const { d, key } = await workspaceWithAdmin();
    const auth = { Authorization: `Bearer ${await key()}` };
    const read = (id: number, uri: string) => rpc(d, { jsonrpc: '2.0', id, method: 'resources/read', params: { uri } }, auth);
    const badEncoding = await read(7, 'article://%ff');
    expect(badEncoding.status).toBe(200);
    expect(await badEncoding.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'The article URI is not valid percent-encoding' } });
    const nul = await read(8, 'article://a%00b');
    expect(nul.status).toBe(200);
    expect(await nul.json()).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'Text may not contain the NUL character (U+0000)' } });
    // Longer than the SDK's URI matcher takes (1 MB): nothing serves it; the message quotes 200 characters.
    const huge = `article://${'a'.repeat(1_100_000)}`;
    const long = await read(9, huge);
    expect(long.status).toBe(200);
    expect(await long.json()).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32002, message: `Resource not found: ${huge.slice(0, 200)}…`, data: { uri: huge } } });
  });

  it('params of the wrong shape are -32602 naming the field; arguments out of range a tool error', async () => {
    const { d, key } = await workspaceWithAdmin();
    const auth = { Authorization: `Bearer ${await key()}` };
    const shape = await rpc(d, { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'list_articles', arguments: 5 } }, auth);
    expect(shape.status).toBe(200);
    expect(await shape.json()).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32602, message: 'Invalid params for tools/call: arguments: expected record, received number' } });
    const range = await rpc(d, toolCall('list_articles', { limit: 0, offset: -1 }, 'y'), auth);
    expect((await range.json()).result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Invalid list options: limit: must be at least 1; offset: must be at least 0' }],
    });
  });
});
