import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

// A cache miss costs a bounded number of statements, whatever the article's tag count, and an
// unknown key is one indexed read (no digest over every workspace).

describe(`cache misses are bounded (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ jobs: false });
  });
  afterAll(() => f.d.stop());

  /** The statements svc sent while `request` ran (knex's query event). */
  const statements = async (request: () => Promise<unknown>): Promise<string[]> => {
    const sent: string[] = [];
    const on = (q: { sql: string }) => sent.push(q.sql);
    f.d.app.db.on('query', on);
    try {
      await request();
    } finally {
      f.d.app.db.off('query', on);
    }
    return sent;
  };

  it('an article with 50 tags costs the statements of one with 1 tag, and its related posts rank by shared tags', async () => {
    const many = Array.from({ length: 49 }, (_, i) => `facet ${i}`);
    // Three posts share the common tag; "close" also shares ten more of the 50-tag article's tags.
    await f.publish({ title: 'Other one', slug: 'other-one', focusKeyword: 'common', contentType: 'GUIDE' });
    await f.publish({ title: 'Close', slug: 'close', focusKeyword: 'common', secondaryKeywords: many.slice(0, 10), contentType: 'LISTICLE' });
    await f.publish({ title: 'Other two', slug: 'other-two', focusKeyword: 'common', contentType: 'BLOG_POST' });
    await f.publish({ title: 'One tag', slug: 'one-tag', focusKeyword: 'common', contentType: 'BLOG_POST' });
    await f.publish({ title: 'Fifty tags', slug: 'fifty-tags', focusKeyword: 'common', secondaryKeywords: many, contentType: 'BLOG_POST' });
    await f.json('/categories'); // the key and the version are read here, not in the misses below

    let fifty: any;
    const oneTag = await statements(() => f.json('/articles/one-tag'));
    const fiftyTags = await statements(async () => (fifty = await f.json('/articles/fifty-tags')));
    expect(fifty.data.tags).toHaveLength(50);
    expect(fifty.data.relatedPosts.map((p: { slug: string }) => p.slug)).toEqual(['close', 'one-tag', 'other-two']);
    expect(fiftyTags.length).toBe(oneTag.length);
    expect(fiftyTags.length).toBeLessThanOrEqual(4); // the article, the URL settings, related posts (and the category's newest when fewer than 3 share a tag)
  });

  it.skipIf(Boolean(PG_URL))('related posts read each tag window from one index alone, and only the winners\' index rows, unsorted', async () => {
    await f.publish({ title: 'Tagged one', slug: 'tagged-one', focusKeyword: 'shared', secondaryKeywords: ['left'], contentType: 'GUIDE' });
    await f.publish({ title: 'Tagged two', slug: 'tagged-two', focusKeyword: 'shared', secondaryKeywords: ['right'], contentType: 'GUIDE' });
    let tags = 0;
    const sent: Array<{ sql: string; bindings: unknown[] }> = [];
    const on = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
    f.d.app.db.on('query', on);
    try {
      const two = await f.json('/articles/tagged-two');
      tags = two.data.tags.length;
      expect(two.data.relatedPosts.map((p: { slug: string }) => p.slug)[0]).toBe('tagged-one');
    } finally {
      f.d.app.db.off('query', on);
    }
    const related = sent.filter((q) => /content_tags/.test(q.sql));
    expect(related).toHaveLength(1);
    const plan: Array<{ parent: number; detail: string }> = await f.d.app.db.raw(`explain query plan ${related[0].sql}`, related[0].bindings as never);
    const details = plan.map((r) => r.detail);
    expect(details.filter((d) => /content_tags/.test(d))).toEqual(Array(tags).fill('SEARCH content_tags USING COVERING INDEX content_tags_window (workspace_id=? AND tag=?)'));
    expect(details.filter((d) => /^SCAN content_/.test(d))).toEqual([]);
    // Sorts happen inside the ranking over slim rows; one at the top would sort candidates' index JSON.
    expect(plan.filter((r) => r.parent === 0 && /TEMP B-TREE/.test(r.detail))).toEqual([]);
  });

  it('an unknown key is looked up by its hash: one statement, never a read of every workspace', async () => {
    const sent = await statements(async () => expect((await f.api('/articles', { key: 'svc_blog_' + 'x'.repeat(32) })).status).toBe(401));
    // Besides the wrong-key count of the address (the limits store, a table on PostgreSQL).
    const reads = sent.filter((sql) => !/rate_limits/.test(sql));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(/from ["`]blog_keys["`] where ["`]key_hash["`] = /);
  });
});
