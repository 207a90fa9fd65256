import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKey } from '../../src/auth/api-keys.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { bindServer, createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/lib/log.js';
import { afterFile } from '../helpers/cleanup.js';
import { freshConfig } from '../helpers/env.js';
import { seedUser, seedWorkspace } from '../helpers/seed.js';
import { LOGGED_URL_MAX } from '../../src/http/middleware/request-log.js';

/** The real daemon in-process, its log captured as the JSON lines it writes. */
async function loggedDaemon() {
  const server = await bindServer(0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  const { config } = await freshConfig({ 'server.host': '127.0.0.1', 'server.port': port });
  const stream = new PassThrough();
  let logged = '';
  stream.on('data', (d) => (logged += d));
  const app = await createApp({ config, log: createLogger('info', stream) });
  const http = createHttpServer(app, server);
  // Not afterAll: called inside a test, vitest ignores it, and the daemon outlived the file.
  afterFile(async () => {
    await http.close();
    await app.close();
  });
  const requestLines = () =>
    logged
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request');
  return { app, config, logged: () => logged, requestLines };
}

describe('request log', () => {
  it('logs the status actually sent, also for routes that write the raw response (MCP 202), and never the key', async () => {
    const { app, config, logged: log } = await loggedDaemon();
    const ws = await seedWorkspace(app);
    const user = await seedUser(app, ws, 'admin');
    const { key } = await createApiKey(app, { workspaceId: ws.id, userId: user.id, name: 'log test', scopes: ['read'] });

    const res = await fetch(`${config.server.baseUrl}/api/mcp?key=secret-in-url`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(res.status).toBe(202);
    await new Promise((r) => setTimeout(r, 20));
    const logged = log();
    const line = logged
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request' && l.url.startsWith('/api/mcp'));
    expect(line).toMatchObject({ method: 'POST', status: 202, url: '/api/mcp?key=[redacted]' });
    expect(logged).not.toContain(key);
    expect(logged).not.toContain('secret-in-url');
  });

  it('redacts a key however its parameter or value is percent-encoded (the server decodes before it reads them)', async () => {
    const { app, config, logged, requestLines } = await loggedDaemon();
    const ws = await seedWorkspace(app);
    const { key } = await generateBlogKey(app, ws);
    const secret = key.slice('svc_blog_'.length);
    const base = `${config.server.baseUrl}/api/v1/content/articles`;
    // The content API decodes `%6Bey` to `key`: the key is accepted, so it must not be logged.
    expect((await fetch(`${base}?%6Bey=${key}`)).status).toBe(200);
    expect((await fetch(`${base}?page=0&%6b%65%79=${key}`)).status).toBe(200);
    const others = [
      `?k%65y=${key}&limit=5`,
      `?KEY=${key}`,
      `?%256Bey=${key}`, // double-encoded name
      `?key=svc%5Fblog%5F${secret}`, // encoded value
      `?q=svc%255Fblog%255F${secret}`, // a key under another name, double-encoded
      `?+key=${key}`,
      `/${key}`, // pasted into the path
      `?access%5Ftoken=${secret}`,
    ];
    for (const suffix of others) await fetch(`${base}${suffix}`);
    await new Promise((r) => setTimeout(r, 20));

    const urls = requestLines().map((l) => l.url as string);
    expect(urls).toHaveLength(2 + others.length);
    expect(logged()).not.toContain(secret);
    for (const url of urls) expect(url).toContain('[redacted]');
    expect(urls).toEqual(
      expect.arrayContaining([
        '/api/v1/content/articles?%6Bey=[redacted]',
        '/api/v1/content/articles?page=0&%6b%65%79=[redacted]',
        '/api/v1/content/articles?k%65y=[redacted]&limit=5',
        '/api/v1/content/articles/[redacted]',
      ]),
    );
  });

  it(`holds at most ${LOGGED_URL_MAX} characters of a URL, on the content API's direct path and through Koa, with a key in it still redacted`, async () => {
    const { config, requestLines } = await loggedDaemon();
    const pad = 'x'.repeat(15_000);
    const key = 'svc_blog_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    for (const path of [`/api/v1/content/articles?key=${key}&z=${pad}`, `/oauth/authorize?client_id=${pad}&key=${key}`]) {
      await (await fetch(`${config.server.baseUrl}${path}`)).arrayBuffer();
    }
    const lines = requestLines().filter((l) => String(l.url).includes('xxxx'));
    expect(lines.map((l) => String(l.url).split('?')[0])).toEqual(['/api/v1/content/articles', '/oauth/authorize']);
    for (const l of lines) {
      expect(String(l.url).length).toBeLessThan(LOGGED_URL_MAX + 40);
      expect(String(l.url)).toMatch(/\.\.\.\(\d+ more characters\)$/);
      expect(String(l.url)).not.toContain(key);
    }
  });
});
