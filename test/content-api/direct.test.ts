import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { loggedDaemon } from '../helpers/logged-daemon.js';
import { seedArticle, seedWorkspace } from '../helpers/seed.js';


interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the request line's target as given: origin form (`/api/...`) or absolute form (`http://host/api/...`). */
function raw(port: number, method: string, target: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject); // the connection closed before the answer's end
    })
      .on('error', reject)
      .end();
  });
}

describe('the content API, answered ahead of Koa or through it', () => {
  it('sends the same status, headers and bytes, and logs and counts the same, whichever way a request comes in', async () => {
    const { app, port, lines } = await loggedDaemon({ 'server.trustProxy': true, 'server.proxyHops': 1, 'content.rateLimitPerMinute': 1000 }); // behind one proxy
    const ws = await seedWorkspace(app);
    const { key } = await generateBlogKey(app, ws);
    const a = await seedArticle(app, ws, { slug: 'the-same-either-way', bodyMarkdown: `## Long\n\n${'Words that compress well. '.repeat(200)}` });
    await publishArticle(app, await getWorkspace(app, ws.id), a.id);
    const auth = { Authorization: `Bearer ${key}` };
    const etag = (await raw(port, 'GET', '/api/v1/content/articles', auth)).headers.etag as string;
    expect(etag).toMatch(/^"/);

    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['GET', '/api/v1/content/articles', auth, 200],
      ['GET', '/api/v1/content/articles?limit=5', { ...auth, 'Accept-Encoding': 'br' }, 200],
      ['GET', '/api/v1/content/articles/the-same-either-way', { ...auth, 'Accept-Encoding': 'gzip' }, 200],
      ['HEAD', '/api/v1/content/articles', auth, 200],
      ['GET', '/api/v1/content/articles', { ...auth, 'If-None-Match': etag }, 304],
      ['OPTIONS', '/api/v1/content/articles', {}, 204],
      ['GET', '/api/v1/content/articles', { Authorization: 'Bearer svc_blog_wrong' }, 401],
      ['GET', `/api/v1/content/articles?key=${key}&page=-1`, {}, 400],
      ['POST', '/api/v1/content/articles', auth, 405],
      ['GET', '/api/v1/content/articles/no-such-post', auth, 404],
      ['GET', '/api/v1/content/nothing-here', auth, 404],
    ];
    const varying = ['date', 'x-request-id', 'connection', 'keep-alive'];
    const comparable = (r: Raw) => ({ status: r.status, body: r.body, headers: Object.fromEntries(Object.entries(r.headers).filter(([k]) => !varying.includes(k))) });
    for (const [i, [method, path, headers, status]] of cases.entries()) {
      const direct = await raw(port, method, path, { ...headers, 'X-Request-Id': `direct-${i}`, 'X-Forwarded-For': '198.51.100.7, 203.0.113.9' });
      const viaKoa = await raw(port, method, `http://127.0.0.1:${port}${path}`, { ...headers, 'X-Request-Id': `koa-${i}`, 'X-Forwarded-For': '198.51.100.7, 203.0.113.9' });
      expect(direct.status, `${method} ${path}`).toBe(status);
      expect(comparable(viaKoa), `${method} ${path}`).toEqual(comparable(direct));
      expect(direct.headers['access-control-allow-origin']).toBe('*');
      expect([direct.headers['x-request-id'], viaKoa.headers['x-request-id']]).toEqual([`direct-${i}`, `koa-${i}`]);
    }

    for (let i = 0; i < 50 && lines.filter((l) => l.msg === 'request').length < 2 * cases.length + 1; i++) await new Promise((r) => setImmediate(r));
    for (const [i, [method, path, , status]] of cases.entries()) {
      const direct = lines.find((l) => l.msg === 'request' && l.requestId === `direct-${i}`);
      const viaKoa = lines.find((l) => l.msg === 'request' && l.requestId === `koa-${i}`);
      expect(direct, `${method} ${path}`).toMatchObject({ method, status, address: '203.0.113.9', url: path.replace(key, '[redacted]') });
      expect(viaKoa).toMatchObject({ method, status, address: '203.0.113.9' });
    }
    expect(JSON.stringify(lines)).not.toContain(key);

    const counted = (await app.metrics.httpRequests.get()).values.filter((v) => String(v.labels.route).startsWith('/api/v1/content'));
    const count = (route: string, status: number) => counted.find((v) => v.labels.route === route && v.labels.status === String(status) && v.labels.method === 'GET')?.value;
    expect(count('/api/v1/content/articles', 304)).toBe(2);
    expect(count('/api/v1/content/articles/:slug', 404)).toBe(2);
    expect(count('/api/v1/content/*', 404)).toBe(2);
  });
});
