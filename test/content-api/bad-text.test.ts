import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

// A NUL character (%00) in a slug or filter reached PostgreSQL, which refuses it: a 500 before.
describe('content API: text the database cannot store', () => {
  it('answers a client error, never a 500, for %00 in the slug, category and tag', async () => {
    const f = await contentFixture({ jobs: false });
    for (const path of ['/articles/a%00b', '/articles?category=a%00', '/articles?tag=%00']) {
      const res = await f.api(path);
      const body = (await res.json()) as { error?: { code: string; message: string } };
      expect(res.status, path).toBeLessThan(500);
      if (PG_URL) {
        expect(res.status, path).toBe(400);
        expect(body.error).toEqual({ code: 'invalid_input', message: 'Text may not contain the NUL character (U+0000)' });
        expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      }
    }
  });
});
