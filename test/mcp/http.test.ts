import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, rpc, toolCall, workspaceWithAdmin } from './helpers.js';

describe('/api/mcp over HTTP', () => {
  it('refuses a foreign Origin with 403 and serves our own and configured origins with CORS', async () => {
    const { d, key } = await workspaceWithAdmin({ overrides: { 'server.allowedOrigins': ['http://localhost:6274'] } });
    const auth = { Authorization: `Bearer ${await key(['read'])}` };
    const foreign = await rpc(d, toolCall('get_site_profile'), { ...auth, Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'Origin https://evil.example is not allowed to call this server' } });
    const own = await rpc(d, toolCall('get_site_profile'), { ...auth, Origin: d.url });
    expect(own.status).toBe(200);
    expect(own.headers.get('access-control-allow-origin')).toBe(d.url);
    const inspector = await rpc(d, toolCall('get_site_profile'), { ...auth, Origin: 'http://localhost:6274' });
    expect(inspector.status).toBe(200);
    expect(inspector.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(inspector.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate.*Mcp-Session-Id/);
  });

  it('answers CORS on 401s and preflights', async () => {
    const { d } = await workspaceWithAdmin();
    const unauth = await rpc(d, toolCall('get_site_profile'), { Origin: d.url });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('access-control-allow-origin')).toBe(d.url);
    expect(unauth.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    const pre = await fetch(`${d.url}/api/mcp`, {
      method: 'OPTIONS',
      headers: { Origin: d.url, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(d.url);
    const allowed = pre.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id']) expect(allowed).toContain(h);
    const foreign = await fetch(`${d.url}/api/mcp`, { method: 'OPTIONS', headers: { Origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });

  it('answers GET and DELETE with 405', async () => {
    const { d, key } = await workspaceWithAdmin();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${d.url}/api/mcp`, { method, headers: { Authorization: `Bearer ${await key(['read'])}`, Accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'method_not_allowed' } } });
    }
  });

  it('serves stateless clients: a tools/call without initialize, accepting only JSON', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    const res = await rpc(d, toolCall('get_site_profile', {}, 'abc'), { Authorization: `Bearer ${await key(['read'])}`, Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'abc', result: { content: [{ type: 'text' }] } });
    expect(body.result.content[0].text.split('\n')[0]).toBe(`${ws.name} — https://example.com`);
  });

  it('answers bad bodies with JSON-RPC errors, never a crash', async () => {
    const { d, key } = await workspaceWithAdmin();
    const auth = { Authorization: `Bearer ${await key(['read'])}` };
    const notJson = await rpc(d, '{"jsonrpc":', auth);
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON', data: { code: 'parse_error' } } });
    const text = await fetch(`${d.url}/api/mcp`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    expect(await text.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Content-Type must be application/json', data: { code: 'unsupported_media_type' } } });
    const notRpc = await rpc(d, { hello: 'world' }, auth);
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: the body is not a JSON-RPC 2.0 request, notification or response', data: { code: 'invalid_request' } },
    });
    const unknownTool = await rpc(d, toolCall('drop_database', {}, 3), auth);
    expect(unknownTool.status).toBe(200);
    expect(await unknownTool.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'Unknown tool "drop_database": tools/list names the tools of this server', data: { name: 'drop_database' } },
    });
  });

  it('offers published articles as resources and a prompt for writing one that passes the audit', async () => {
    const { d, ws, key } = await workspaceWithAdmin();
    await generateBlogKey(d.app, ws);
    const live = await seedArticle(d.app, ws, { title: 'Live post', metaDescription: 'It is live.' });
    await seedArticle(d.app, ws, { title: 'Draft post' });
    await publishArticle(d.app, ws, live.id);
    const agent = await connect(d, await key(['read']));
    const { resources } = await agent.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'article://live-post', name: 'live-post', title: 'Live post', mimeType: 'text/markdown' })]);
    const read = await agent.readResource({ uri: 'article://live-post' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining(`# Live post\n\n${live.bodyMarkdown}`) });
    await expect(agent.readResource({ uri: 'article://draft-post' })).rejects.toThrow(/No published article "draft-post"/);
    const prompt = await agent.getPrompt({ name: 'write_seo_article', arguments: { topic: 'Cold brew', focusKeyword: 'cold brew coffee' } });
    const text = (prompt.messages[0].content as { text: string }).text;
    expect(text).toContain('Focus keyword: "cold brew coffee"');
    expect(text).toContain('audit_article');
    const noRead = await connect(d, await key(['content']));
    await expect(noRead.listResources()).rejects.toThrow('This connection was not granted the `read` scope');
  });
});
