import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDraft } from '../../src/articles/service.js';
import { generateBlogKey } from '../../src/auth/blog-keys.js';
import { QUERY_PREFIXES_MAX, QUERY_TERMS_MAX } from '../../src/content/search-terms.js';
import { withTransaction } from '../../src/db/tx.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import type { App } from '../../src/app.js';
import type { Workspace } from '../../src/workspaces/types.js';
import { PG_URL } from '../helpers/env.js';
import { seedWorkspace } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';

// Search is bounded: a capped number of terms and of single-character (prefix) terms, a few
// searches at once per key (the rest wait briefly, then 429 with Retry-After), and one
// workspace's searches never make another workspace's reads fail.

const HAN = [...'京都大阪東北海道山川田中村本日月火水木金土人口目耳手足上下左右前後内外高低長短新古'];

/** Publish `n` articles with CJK bodies in `ws`, in batches (the fast path an import takes). */
async function publishCjk(app: App, ws: Workspace, n: number, prefix: string): Promise<void> {
  for (let b = 0; b < n; b += 100) {
    const drafts = await withTransaction(app.db, async (trx) => {
      const out = [];
      for (let i = b; i < Math.min(n, b + 100); i++) {
        const text = Array.from({ length: 400 }, (_, j) => HAN[(i * 7 + j * 13 + ((j * j) % 11)) % HAN.length]).join('');
        out.push(await insertDraft({ ...app, db: trx }, ws, { title: `${prefix} ${i} ${text.slice(0, 8)}`, slug: `${prefix}-${i}`, bodyMarkdown: `## ${text.slice(0, 20)}\n\n${text}`, focusKeyword: `${prefix} topic ${i % 5}` }));
      }
      return out;
    });
    await publishMany(app, await getWorkspace(app, ws.id), drafts);
  }
}

describe(`search is bounded (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  let other: { ws: Workspace; key: string };
  beforeAll(async () => {
    // A short deadline and a small pool: a read of another workspace left waiting behind searches shows as a 503.
    f = await contentFixture({ jobs: false, overrides: { 'content.timeout': '2s', 'database.poolMax': 6, 'content.rateLimitPerMinute': 100_000 } });
    await publishCjk(f.d.app, f.ws, 300, 'a');
    const ws = await seedWorkspace(f.d.app, { name: 'other.example' });
    other = { ws, key: (await generateBlogKey(f.d.app, ws)).key };
    await publishCjk(f.d.app, ws, 30, 'b');
  }, 120_000);
  afterAll(() => f.d.stop());

  it('refuses too many terms and too many single CJK characters by name, before any search runs', async () => {
    const single = HAN.slice(0, 100).join(' ');
    for (const [q, words] of [
      [single, `at most ${QUERY_TERMS_MAX} words`],
      [Array.from({ length: QUERY_TERMS_MAX + 1 }, (_, i) => `word${i}`).join(' '), `at most ${QUERY_TERMS_MAX} words`],
      [HAN.slice(0, QUERY_PREFIXES_MAX + 1).join(' '), `at most ${QUERY_PREFIXES_MAX} single characters`],
    ]) {
      const res = await f.api(`/articles?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'invalid_parameter' });
      expect(body.error.message).toContain(words);
      expect(body.error.message).toContain('q parameter');
    }
    expect((await f.api(`/articles?q=${encodeURIComponent(HAN.slice(0, QUERY_PREFIXES_MAX).join(' '))}`)).status).toBe(200);
  });

  it('100 concurrent heavy searches in one workspace: at most 2 run at once, the rest wait or get 429 with Retry-After; every uncached read of another workspace succeeds', { timeout: 60_000 }, async () => {
    // Searches in flight, seen from the statements sent (knex's query events).
    let inFlight = 0;
    let most = 0;
    const searching = new Set<string>();
    const started = (q: { sql: string; __knexQueryUid: string }) => {
      if (!/content_search/.test(q.sql)) return;
      searching.add(q.__knexQueryUid);
      most = Math.max(most, ++inFlight);
    };
    const ended = (_: unknown, q: { __knexQueryUid: string }) => {
      if (searching.delete(q.__knexQueryUid)) inFlight--;
    };
    f.d.app.db.on('query', started).on('query-response', ended).on('query-error', ended);
    // Distinct queries (no shared fill, no cache): two single characters each, the dearest terms allowed.
    const searches = Array.from({ length: 100 }, (_, i) => f.api(`/articles?limit=${1 + (i % 100)}&q=${encodeURIComponent(`${HAN[i % HAN.length]} ${HAN[(i * 3 + 1) % HAN.length]}`)}`));
    const reads = [
      ...Array.from({ length: 30 }, (_, i) => `/articles/b-${i}`),
      ...Array.from({ length: 20 }, (_, i) => `/articles?limit=${i + 1}`),
      '/categories',
      '/tags',
      '/sitemap',
    ].map((path) => fetch(`${f.base}${path}`, { headers: { Authorization: `Bearer ${other.key}` } }));
    const readStatuses = (await Promise.all(reads)).map((r) => r.status);
    const answered = await Promise.all(searches);
    f.d.app.db.off('query', started).off('query-response', ended).off('query-error', ended);
    // content.searchConcurrency (2) of the key at once, though the pool holds 6 connections.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
    expect(readStatuses.filter((s) => s !== 200)).toEqual([]);
    const statuses = answered.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses).toContain(200);
    const refused = answered.find((r) => r.status === 429);
    if (refused) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
    }
  });
});
