import {
  CallToolResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  InitializeResultSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { seedArticle } from '../helpers/seed.js';
import { connect, rpc, workspaceWithAdmin } from './helpers.js';

// The server scenarios of the MCP conformance suite (github.com/modelcontextprotocol/conformance,
// requirements for 2025-11-25) that apply to a stateless, authenticated server, checked our own
// way: the SDK's Client where the suite connects with it, raw JSON-RPC over HTTP elsewhere. Every
// raw answer is checked against the SDK's schema of the spec type for its method, as the suite's
// wire-schema check does. Fixture-specific scenarios (test_* tools, sampling, elicitation,
// subscriptions, SSE streams, sessions) do not apply: svc has its own tools and no sessions.

const RESULT_SCHEMAS = {
  initialize: InitializeResultSchema,
  ping: EmptyResultSchema,
  'tools/list': ListToolsResultSchema,
  'tools/call': CallToolResultSchema,
  'resources/list': ListResourcesResultSchema,
  'resources/templates/list': ListResourceTemplatesResultSchema,
  'resources/read': ReadResourceResultSchema,
  'prompts/list': ListPromptsResultSchema,
  'prompts/get': GetPromptResultSchema,
} as const;

type Method = keyof typeof RESULT_SCHEMAS | 'logging/setLevel' | 'resources/subscribe' | 'completion/complete';
type RpcAnswer = { jsonrpc: '2.0'; id: string | number | null; result?: any; error?: { code: number; message: string; data?: any } };

let d: TestDaemon;
let key: string;

beforeAll(async () => {
  const f = await workspaceWithAdmin();
  d = f.d;
  key = await f.key(['read', 'content', 'publish']);
  await generateBlogKey(d.app, f.ws);
  const live = await seedArticle(d.app, f.ws, { title: 'Live post', metaDescription: 'It is live.' });
  await publishArticle(d.app, f.ws, live.id);
});

/** One raw request as a 2025-11-25 client sends it after initialize; the answer is checked against the spec types. */
async function request(method: Method, params?: Record<string, unknown>, id: string | number = 1, headers: Record<string, string> = {}): Promise<{ status: number; body: RpcAnswer }> {
  const res = await rpc(d, { jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, { Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION, ...headers });
  const body = (await res.json()) as RpcAnswer;
  expect(JSONRPCMessageSchema.safeParse(body).success, JSON.stringify(body)).toBe(true);
  expect(body.id).toBe(id);
  const schema = RESULT_SCHEMAS[method as keyof typeof RESULT_SCHEMAS];
  if (body.result && schema) expect(schema.safeParse(body.result).error?.issues).toBeUndefined();
  return { status: res.status, body };
}

const initialize = (protocolVersion: unknown) => ({ protocolVersion, capabilities: {}, clientInfo: { name: 'conformance', version: '1.0.0' } });

describe('conformance: lifecycle (server-initialize, ping)', () => {
  it('the SDK client initializes; capabilities promise nothing a stateless server cannot send', async () => {
    const agent = await connect(d, key);
    expect(agent.getServerVersion()).toMatchObject({ name: 'svc' });
    const caps = agent.getServerCapabilities()!;
    expect(caps).toEqual({ tools: {}, resources: {}, prompts: {} }); // no listChanged, subscribe, logging or completions
    expect(agent.getInstructions()).toMatch(/get_site_profile/);
  });

  it('negotiates the version: ours when asked for it or an unknown one, the client\'s when we support it; no session id', async () => {
    for (const [asked, answered] of [[LATEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION], ['2025-03-26', '2025-03-26'], ['2099-01-01', LATEST_PROTOCOL_VERSION]]) {
      const res = await rpc(d, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize(asked) }, { Authorization: `Bearer ${key}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      const body = await res.json();
      expect(InitializeResultSchema.safeParse(body.result).success).toBe(true);
      expect(body.result.protocolVersion).toBe(answered);
    }
  });

  it('initialize with invalid params is -32602 naming the fields, not an internal error', async () => {
    const { status, body } = await request('initialize', { capabilities: {} }, 'init-1');
    expect(status).toBe(200);
    expect(body.error).toEqual({
      code: -32602,
      message: 'Invalid params for initialize: protocolVersion: is required (a string); clientInfo: is required (an object)',
    });
    expect((await request('initialize', initialize(42), 'init-2')).body.error).toEqual({
      code: -32602,
      message: 'Invalid params for initialize: protocolVersion: expected string, received number',
    });
  });

  it('ping answers an empty result to a string id', async () => {
    expect((await request('ping', undefined, '123')).body.result).toEqual({});
  });

  it('methods the server does not advertise are -32601 Method not found', async () => {
    for (const [method, params] of [['logging/setLevel', { level: 'info' }], ['resources/subscribe', { uri: 'article://live-post' }], ['completion/complete', { ref: { type: 'ref/prompt', name: 'write_seo_article' }, argument: { name: 'topic', value: 'x' } }]] as const) {
      expect((await request(method, params)).body.error).toEqual({ code: -32601, message: 'Method not found' });
    }
  });
});

describe('conformance: tools (tools-list, tools-call-error)', () => {
  it('lists tools with SEP-986 names, a description and a strict object input schema', async () => {
    const { tools } = (await request('tools/list')).body.result as { tools: Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }> };
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/);
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('docs/mcp.md has a row for every tool the server lists, and none for a tool it does not', async () => {
    const { tools } = (await request('tools/list')).body.result as { tools: Array<{ name: string }> };
    const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([a-z_]+)` \| (?:read|content|publish)[^|]*\|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(tools.map((t) => t.name).sort());
  });

  it('a failing tool answers isError with a text saying why', async () => {
    const { body } = await request('tools/call', { name: 'get_article', arguments: { slug: 'no-such-post' } });
    expect(body.result).toEqual({ isError: true, content: [{ type: 'text', text: 'Article "no-such-post" not found' }] });
  });

  it('an unknown tool is a protocol error -32602; unknown arguments are refused, not ignored', async () => {
    expect((await request('tools/call', { name: 'drop_database', arguments: {} }, 5)).body.error).toEqual({
      code: -32602,
      message: 'Unknown tool "drop_database": tools/list names the tools of this server',
      data: { name: 'drop_database' },
    });
    // additionalProperties: false, as advertised: an input validation error is a tool error (spec 2025-11-25, tools).
    expect((await request('tools/call', { name: 'list_articles', arguments: { limit: 5, colour: 'red' } })).body.result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Invalid list options: unknown field colour' }],
    });
  });
});

describe('conformance: resources (resources-list, resources-read-text, templates, not found)', () => {
  it('lists resources with uri and name, reads one as text, lists the template', async () => {
    const { resources } = (await request('resources/list')).body.result;
    expect(resources).toEqual([expect.objectContaining({ uri: 'article://live-post', name: 'live-post', mimeType: 'text/markdown' })]);
    const { contents } = (await request('resources/read', { uri: 'article://live-post' })).body.result;
    expect(contents).toEqual([{ uri: 'article://live-post', mimeType: 'text/markdown', text: expect.stringContaining('# Live post') }]);
    const { resourceTemplates } = (await request('resources/templates/list')).body.result;
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'article://{slug}', name: 'published-article' })]);
  });

  it('a URI nothing serves, or an unpublished article, is -32002 with the uri in data, never empty contents', async () => {
    expect((await request('resources/read', { uri: 'test://nonexistent-resource' }, 8)).body.error).toEqual({
      code: -32002,
      message: 'Resource not found: test://nonexistent-resource',
      data: { uri: 'test://nonexistent-resource' },
    });
    expect((await request('resources/read', { uri: 'article://no-such-post' }, 9)).body.error).toEqual({
      code: -32002,
      message: 'No published article "no-such-post"',
      data: { uri: 'article://no-such-post' },
    });
  });
});

describe('conformance: prompts (prompts-list, prompts-get-with-args)', () => {
  it('lists prompts with a name and description and fills in the arguments', async () => {
    const { prompts } = (await request('prompts/list')).body.result;
    for (const p of prompts) expect(p).toMatchObject({ name: expect.any(String), description: expect.any(String) });
    const { messages } = (await request('prompts/get', { name: 'write_seo_article', arguments: { topic: 'Cold brew', focusKeyword: 'cold brew coffee' } })).body.result;
    expect(messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: expect.stringContaining('Focus keyword: "cold brew coffee"') } });
    expect(messages[0].content.text).toContain('about: Cold brew');
  });

  it('an unknown prompt, or one missing its arguments, is -32602', async () => {
    expect((await request('prompts/get', { name: 'nope' })).body.error).toEqual({
      code: -32602,
      message: 'Unknown prompt "nope": prompts/list names the prompts of this server',
      data: { name: 'nope' },
    });
    expect((await request('prompts/get', { name: 'write_seo_article', arguments: { topic: 'x' } })).body.error).toEqual({
      code: -32602,
      message: 'Invalid arguments for prompt write_seo_article: focusKeyword: is required',
    });
  });
});

describe('conformance: transport (dns-rebinding-protection, notifications, headers)', () => {
  it('refuses a foreign Origin with a 4xx JSON-RPC error and serves its own', async () => {
    const evil = await rpc(d, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize(LATEST_PROTOCOL_VERSION) }, { Authorization: `Bearer ${key}`, Origin: 'http://evil.example.com' });
    expect(evil.status).toBe(403);
    // Refused on its headers, before the body is read: the error has no id (spec 2025-11-25, transports).
    expect(await evil.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    const own = await rpc(d, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize(LATEST_PROTOCOL_VERSION) }, { Authorization: `Bearer ${key}`, Origin: d.url });
    expect(own.status).toBe(200);
  });

  it('accepts notifications with 202 and no body', async () => {
    const res = await rpc(d, { jsonrpc: '2.0', method: 'notifications/initialized' }, { Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': LATEST_PROTOCOL_VERSION });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('refuses an unsupported MCP-Protocol-Version with a 400 that answers the request id', async () => {
    const { status, body } = await request('ping', undefined, 77, { 'MCP-Protocol-Version': '1999-01-01' });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^Bad Request: unsupported MCP-Protocol-Version 1999-01-01 \(supported: 2025-11-25/) });
  });
});
