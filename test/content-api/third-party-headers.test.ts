import { describe, expect, it } from 'vitest';
import { contentFixture } from './fixture.js';

describe('what third-party clients see in the headers', () => {
  it('sends Last-Modified on every 200, filters that cannot be slugs and a workspace with nothing published included', async () => {
    const f = await contentFixture();
    for (const path of ['/articles', '/articles?tag=%20!!', '/articles?category=a%2Fb', '/categories', '/tags', '/sitemap']) {
      const res = await f.api(path);
      expect(res.status, path).toBe(200);
      expect(Date.parse(res.headers.get('last-modified') ?? ''), path).not.toBeNaN();
      expect(res.headers.get('cache-control'), path).toBe('private, max-age=60');
    }
    await f.publish();
    const res = await f.api('/articles?tag=%20!!');
    expect(res.status).toBe(200);
    expect(Date.parse(res.headers.get('last-modified') ?? '')).not.toBeNaN();
    // An unknown slug is an error like any other: no-store, though its 404 is cached in the daemon.
    for (let i = 0; i < 2; i++) {
      const missing = await f.api('/articles/no-such-article');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('decides 405 before any slug check, and lets browsers read Allow', async () => {
    const f = await contentFixture();
    for (const slug of ['x'.repeat(201), '%zz', 'no-such-article']) {
      const res = await f.api(`/articles/${slug}`, { method: 'DELETE' });
      expect(res.status, slug).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect((await res.json()).error.code).toBe('method_not_allowed');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const res = await f.api('/articles', { headers: { Origin: 'https://blog.example' } });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining(['allow', 'etag', 'last-modified', 'retry-after', 'cache-control']));
  });
});
