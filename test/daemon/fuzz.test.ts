import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { startDaemon } from '../helpers/daemon.js';
import { seedArticle, seedUser, seedWorkspace } from '../helpers/seed.js';
import { approve, exchange, registerClient, sessionFor } from '../oauth/flow.js';

// Hostile and broken requests to every endpoint, authenticated where that gets deeper: each
// must be answered by the surface with a 4xx (or a 2xx/3xx), never a 5xx (issue 11).

type Case = { name: string; headers?: Record<string, string>; body?: string | Uint8Array; query?: string };

const json = 'application/json';
const form = 'application/x-www-form-urlencoded';
const plainJson = '{"redirect_uris":["http://127.0.0.1:9/cb"],"name":"x","scopes":["read"],"jsonrpc":"2.0","id":1,"method":"tools/list"}';
const plainForm = 'grant_type=refresh_token&refresh_token=x&client_id=cli_x&token=x&csrf=x&email=a%40b.c&password=x';

const BODIES: Case[] = [
  ...['gzip', 'br', 'deflate', 'x-unknown', 'gzip, identity', 'GZIP', 'identity, gzip'].flatMap((coding): Case[] => [
    { name: `${coding}: plain JSON`, headers: { 'Content-Type': json, 'Content-Encoding': coding }, body: plainJson },
    { name: `${coding}: plain form`, headers: { 'Content-Type': form, 'Content-Encoding': coding }, body: plainForm },
  ]),
  { name: 'gzip: real gzip JSON', headers: { 'Content-Type': json, 'Content-Encoding': 'gzip' }, body: gzipSync(plainJson) },
  { name: 'br: gzip bytes', headers: { 'Content-Type': json, 'Content-Encoding': 'br' }, body: gzipSync(plainJson) },
  { name: 'br: real brotli form', headers: { 'Content-Type': form, 'Content-Encoding': 'br' }, body: brotliCompressSync(plainForm) },
  { name: 'deflate: truncated', headers: { 'Content-Type': form, 'Content-Encoding': 'deflate' }, body: deflateSync(plainForm).subarray(0, 5) },
  { name: 'identity: gzip bytes', headers: { 'Content-Type': json }, body: gzipSync(plainJson) },
  { name: 'malformed JSON', headers: { 'Content-Type': json }, body: '{"a":' },
  { name: 'JSON null', headers: { 'Content-Type': json }, body: 'null' },
  { name: 'JSON array', headers: { 'Content-Type': json }, body: '[1,{"a":[]}]' },
  { name: 'JSON string', headers: { 'Content-Type': json }, body: '"x"' },
  { name: 'JSON deep nesting', headers: { 'Content-Type': json }, body: '['.repeat(20_000) + ']'.repeat(20_000) },
  { name: 'JSON unclosed nesting', headers: { 'Content-Type': json }, body: '{"a":'.repeat(50_000) },
  { name: 'JSON wrong types', headers: { 'Content-Type': json }, body: '{"redirect_uris":"x","client_name":{},"grant_types":7,"name":[],"scopes":{"a":1},"jsonrpc":2,"method":{}}' },
  { name: 'JSON nulls', headers: { 'Content-Type': json }, body: '{"redirect_uris":[null],"client_name":null,"scopes":null,"name":null,"id":null,"method":null,"params":null}' },
  { name: 'JSON prototype keys', headers: { 'Content-Type': json }, body: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}' },
  { name: 'JSON NUL and lone surrogates', headers: { 'Content-Type': json }, body: '{"client_name":"a\\u0000b\\ud800","redirect_uris":["http://127.0.0.1:9/\\u0000"],"name":"\\u0000"}' },
  { name: 'JSON utf-16 charset', headers: { 'Content-Type': 'application/json; charset=utf-16' }, body: plainJson },
  { name: 'JSON bogus charset', headers: { 'Content-Type': 'application/json; charset=bogus' }, body: plainJson },
  { name: 'invalid UTF-8', headers: { 'Content-Type': json }, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
  { name: 'form repeated parameters', headers: { 'Content-Type': form }, body: `${plainForm}&grant_type=authorization_code&client_id=cli_y&csrf=y&email=c%40d.e` },
  { name: 'form nested parameters', headers: { 'Content-Type': form }, body: 'grant_type[a]=1&client_id[]=x&token[b][c]=1&csrf[]=1&email[x]=1&scope[a]=read&decision[]=approve&request[a]=1' },
  { name: 'form prototype parameters', headers: { 'Content-Type': form }, body: '__proto__[x]=1&constructor[prototype][y]=1&hasOwnProperty=1' },
  { name: 'form bad percent-encoding', headers: { 'Content-Type': form }, body: 'client_id=%ZZ&token=%&csrf=%E0%A4%A&email=%00' },
  { name: 'form NUL', headers: { 'Content-Type': form }, body: 'client_id=cli%00x&grant_type=refresh_token&refresh_token=%00&email=a%00%40b.c&password=%00&token=%00' },
  { name: 'form huge value', headers: { 'Content-Type': form }, body: `client_id=${'x'.repeat(30_000)}&email=${'y'.repeat(20_000)}` },
  { name: 'form over the limit', headers: { 'Content-Type': form }, body: `a=${'x'.repeat(200_000)}` },
  { name: 'JSON over the limit', headers: { 'Content-Type': json }, body: `{"a":"${'x'.repeat(300_000)}"}` },
  { name: 'text/plain', headers: { 'Content-Type': 'text/plain' }, body: plainJson },
  { name: 'xml', headers: { 'Content-Type': 'application/xml' }, body: '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>' },
  { name: 'multipart garbage', headers: { 'Content-Type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n' },
  { name: 'no Content-Type', body: plainJson },
  { name: 'garbage Content-Type', headers: { 'Content-Type': ';;;/=' }, body: plainForm },
];

// /api/mcp takes bodies up to 5 MB (an article); the Koa routes 64 kB at most.
const MCP_OVER_LIMIT: Case = { name: 'JSON over the MCP limit', headers: { 'Content-Type': json }, body: `{"a":"${'x'.repeat(5_300_000)}"}` };

const QUERIES: Case[] = [
  { name: 'repeated parameters', query: 'page=1&page=2&limit=3&limit=4&client_id=a&client_id=b&next=/a&next=/b&key=a&key=b' },
  { name: 'bad numbers', query: 'page=-1e309&limit=NaN&category=%00&tag=%ZZ' },
  { name: 'bad percent-encoding', query: 'next=%E0%A4%A&response_type=%&state=%00&revoked=%' },
  { name: 'nested parameters', query: 'page[a]=1&client_id[]=x&redirect_uri[a][b]=c&next[]=x' },
  { name: 'huge parameter', query: `state=${'s'.repeat(12_000)}` },
  { name: 'hostile values', query: 'response_type=code&client_id=cli_%00&redirect_uri=javascript:alert(1)&code_challenge=%00&scope=%00&resource=%00&next=//evil.example' },
];

const HEADERS: Case[] = [
  { name: 'hostile Authorization', headers: { Authorization: `Bearer ${'x'.repeat(6000)}` } },
  { name: 'Basic garbage', headers: { Authorization: 'Basic !!!%%%' } },
  { name: 'Basic without colon', headers: { Authorization: `Basic ${Buffer.from('cli_x').toString('base64')}` } },
  { name: 'bad cookies', headers: { Cookie: '__session=%; __session=%00; a' } },
  { name: 'X-Api-Key and If-None-Match garbage', headers: { 'X-Api-Key': '\u00ff'.repeat(10), 'If-None-Match': '"' + 'x'.repeat(3000), 'If-Modified-Since': 'yesterday' } },
  { name: 'hostile Origin and forwarded headers', headers: { Origin: 'null', 'Sec-Fetch-Site': 'cross-site', 'X-Forwarded-For': 'a, b, , c', 'X-Forwarded-Proto': 'gopher', 'X-Forwarded-Host': '%00' } },
];

describe('fuzzing every endpoint: no 5xx', () => {
  it('answers malformed bodies, encodings, content types, huge and repeated parameters with 4xx', { timeout: 120_000 }, async () => {
    const d = await startDaemon({ jobs: false });
    const ws = await seedWorkspace(d.app);
    const user = await seedUser(d.app, ws, 'admin');
    await seedArticle(d.app, ws);
    const blogKey = (await generateBlogKey(d.app, ws)).key;
    const apiKey = (await createApiKey(d.app, { workspaceId: ws.id, userId: user.id, name: 'fuzz', scopes: ['read', 'content', 'publish'] })).key;
    const s = await sessionFor(d, user.id);
    const client = await registerClient(d);
    const pair = await exchange(d, client.client_id, await approve(d, s, client));
    const [connection] = (await (await fetch(`${d.url}/connections`, { headers: { Cookie: s.cookie } })).text()).match(/oac_[A-Za-z0-9]+/) ?? ['oac_x'];

    type Headers = Record<string, string>;
    const session: Headers = { Cookie: s.cookie };
    const anonymous: Headers = {};
    type Endpoint = { path: string; methods: string[]; auth?: Headers[]; readsBody?: boolean };
    const endpoints: Endpoint[] = [
      { path: '/healthz', methods: ['GET', 'POST'] },
      ...['articles', 'articles/a-slug', 'sitemap'].map((p) => ({ path: `/api/v1/content/${p}`, methods: ['GET', 'POST', 'OPTIONS'], auth: [anonymous, { Authorization: `Bearer ${blogKey}` }] })),
      { readsBody: true, path: '/api/mcp', methods: ['POST', 'GET', 'DELETE', 'OPTIONS'], auth: [anonymous, { Authorization: `Bearer ${apiKey}` }, { Authorization: `Bearer ${pair.access_token}` }] },
      ...['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server'].map((path) => ({ path, methods: ['GET', 'POST'] })),
      ...['/oauth/register', '/oauth/token', '/oauth/revoke'].map((path) => ({ path, methods: ['POST', 'GET', 'OPTIONS'], readsBody: true })),
      { readsBody: true, path: '/oauth/authorize', methods: ['GET', 'POST'], auth: [anonymous, session] },
      { readsBody: true, path: '/login', methods: ['GET', 'POST'], auth: [anonymous, session] },
      { readsBody: true, path: '/logout', methods: ['POST', 'GET'], auth: [session] },
      { path: '/connections', methods: ['GET'], auth: [session] },
      { readsBody: true, path: `/connections/${connection}/revoke`, methods: ['POST'], auth: [anonymous, session] },
      { readsBody: true, path: `/api/v1/workspaces/${ws.id}/api-keys`, methods: ['POST'], auth: [anonymous, session] },
      { path: '/no/such/route', methods: ['GET', 'POST'] },
    ];

    const requests: Array<{ label: string; run: () => Promise<Response> }> = [];
    for (const e of endpoints) for (const method of e.methods) for (const [n, auth] of (e.auth ?? [anonymous]).entries()) {
      // Routes that never read a body (GET-only surfaces, unknown paths) get a sample of bodies.
      const bodies = e.path === '/api/mcp' ? [...BODIES, MCP_OVER_LIMIT] : e.readsBody ? BODIES : BODIES.filter((_, i) => i % 8 === 0);
      // Bodies with every credential; queries and headers with the deepest-reaching one only.
      const last = n === (e.auth ?? [anonymous]).length - 1;
      const noBody = method === 'GET' || method === 'DELETE' || method === 'OPTIONS';
      const cases = [...(noBody ? [] : bodies), ...(last ? [...QUERIES, ...HEADERS] : [])];
      for (const c of cases) {
        const label = `${method} ${e.path} [${Object.keys(auth).join(',') || 'anonymous'}] ${c.name}`;
        requests.push({
          label,
          run: () =>
            fetch(`${d.url}${e.path}${c.query ? `?${c.query}` : ''}`, {
              method,
              redirect: 'manual',
              signal: AbortSignal.timeout(5000),
              headers: { ...auth, ...c.headers },
              body: method === 'GET' || method === 'DELETE' || method === 'OPTIONS' ? undefined : typeof c.body === 'string' || !c.body ? (c.body ?? plainForm) : new Uint8Array(c.body),
            }),
        });
      }
    }

    const failures: string[] = [];
    const queue = [...requests];
    const worker = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        try {
          const res = await r.run();
          const text = await res.text();
          if (res.status >= 500) failures.push(`${r.label}: ${res.status} ${text.slice(0, 120)}`);
        } catch (err) {
          // A connection the server closed on an over-limit body is a refusal too; anything else is not.
          const cause = (err as { cause?: { code?: string } }).cause?.code;
          if (cause !== 'ECONNRESET' && cause !== 'UND_ERR_SOCKET') failures.push(`${r.label}: ${String(err)} ${cause ?? ''}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(requests.length).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  });
});
