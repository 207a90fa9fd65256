import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import type { Scope } from '../../src/auth/scopes.js';
import { type TestDaemon, startDaemon } from '../helpers/daemon.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { afterFile } from '../helpers/cleanup.js';

export type Agent = Client & { call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { text: string }> };

/** The SDK's own client over real HTTP, authenticated with an API key. */
export async function connect(d: TestDaemon, key: string): Promise<Agent> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${d.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  afterFile(() => client.close());
  return Object.assign(client, {
    async call(name: string, args: Record<string, unknown> = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...result, text };
    },
  });
}

/** A daemon with one workspace, its admin, and a key factory. */
export async function workspaceWithAdmin(options: Parameters<typeof startDaemon>[0] = {}) {
  const d = await startDaemon({ jobs: false, ...options });
  const ws = await seedWorkspace(d.app);
  const admin = await seedUser(d.app, ws, 'admin');
  const key = async (scopes: Scope[] = ['read', 'content', 'publish'], userId = admin.id) =>
    (await createApiKey(d.app, { workspaceId: ws.id, userId, name: `key-${scopes.join('-')}`, scopes })).key;
  return { d, ws, admin, key };
}

/** A raw JSON-RPC POST, as a stateless client (or curl) would send it. */
export async function rpc(d: TestDaemon, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${d.url}/api/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const toolCall = (name: string, args: Record<string, unknown> = {}, id: number | string = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/**
 * Sends the headers and `first` bytes of a body announced as `length` bytes, never the rest: an
 * answer proves the daemon decided without waiting for (or parsing) the body.
 */
export function startPost(d: TestDaemon, headers: Record<string, string>, first: string, length: number): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(`${d.url}/api/mcp`);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(length), ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.write(first);
    setTimeout(() => {
      req.destroy();
      reject(new Error('no answer within 5 s: the daemon waited for the body'));
    }, 5000).unref();
  });
}
