import { describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/content/delivery.js';
import { SLUG_MAX } from '../../src/lib/slug.js';
import { contentFixture } from './fixture.js';

/** Cache lookups of article routes so far, by result. */
async function articleLookups(app: { metrics: { contentCache: { get(): Promise<{ values: Array<{ labels: Record<string, unknown>; value: number }> }> } } }) {
  const { values } = await app.metrics.contentCache.get();
  const of = (result: string) => values.find((v) => v.labels.kind === 'article' && v.labels.result === result)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss') };
}

describe('missing slugs (issue 22)', () => {
  it('answers a slug longer than any slug may be with a 404 that touches neither the cache nor the database', async () => {
    const f = await contentFixture({ jobs: false });
    try {
      const longest = 'a'.repeat(SLUG_MAX);
      const res = await f.api(`/articles/${longest}`);
      expect(res.status).toBe(404);
      expect(await articleLookups(f.d.app)).toEqual({ hit: 0, miss: 1 }); // the longest valid slug is looked up

      for (const slug of ['a'.repeat(SLUG_MAX + 1), 'é'.repeat(SLUG_MAX + 1), `${'b'.repeat(SLUG_MAX)}-c`, encodeURIComponent('ü'.repeat(SLUG_MAX + 5))]) {
        const long = await f.api(`/articles/${slug}`);
        expect(long.status).toBe(404);
        expect(((await long.json()) as { error: { code: string } }).error.code).toBe('not_found');
        expect(long.headers.get('access-control-allow-origin')).toBe('*');
      }
      expect(await articleLookups(f.d.app)).toEqual({ hit: 0, miss: 1 }); // none of them

      // Characters, not UTF-16 units: 200 astral letters are a valid length.
      expect((await f.api(`/articles/${encodeURIComponent('𝒶'.repeat(SLUG_MAX))}`)).status).toBe(404);
      expect(await articleLookups(f.d.app)).toEqual({ hit: 0, miss: 2 });
    } finally {
      await f.d.stop();
    }
  });

  it('keeps 404s to their share of the cache, so a flood of made-up slugs does not push out the served answers', () => {
    const cache = new ResponseCache(64 * 1024);
    const page = { status: 200, body: Buffer.alloc(8 * 1024), etag: '"p"', lastModified: null, version: 1 };
    cache.set('ws\0page', page);
    for (let i = 0; i < 2_000; i++) {
      cache.set(`ws\0article\0made-up-${i}`, { status: 404, body: Buffer.from(`{"error":{"code":"not_found","message":"Article \\"made-up-${i}\\" not found"}}`), etag: null, lastModified: null, version: 1 });
    }
    expect(cache.get('ws\0page', 1)).toBe(page);
    expect(cache.missBytes).toBeLessThanOrEqual(64 * 1024 / 16);
    expect(cache.missBytes).toBeGreaterThan(0);
    expect(cache.get('ws\0article\0made-up-1999', 1)?.status).toBe(404); // the newest misses are kept
  });
});
