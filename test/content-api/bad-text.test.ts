import { describe, expect, it } from 'vitest';
import { contentFixture } from './fixture.js';

// A NUL character (%00) in a slug or filter reached PostgreSQL, which refuses it: a 500 before,
// and SQLite answered otherwise. Neither can be a slug, so both databases now answer the same
// without a query: an unknown article is a 404, an unknown category or tag an empty page.
describe('content API: text the database cannot store', () => {
  it('answers %00 in the slug with 404 and in a category or tag with an empty page, on SQLite and PostgreSQL alike', async () => {
    const f = await contentFixture({ jobs: false });
    const res = await f.api('/articles/a%00b');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Article "a\u0000b" not found' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    for (const path of ['/articles?category=a%00', '/articles?tag=%00']) {
      const page = await f.api(path);
      expect(page.status, path).toBe(200);
      expect(await page.json(), path).toEqual({ data: { articles: [], total: 0, page: 0, limit: 10 } });
    }
  });
});
