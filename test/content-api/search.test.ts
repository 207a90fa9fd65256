import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import * as fill from '../../migrations/2026-11-26-0901-fill-content-search.js';
import { deleteArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { PG_URL } from '../helpers/env.js';
import { seedArticle } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';
import { MATCH_CAP, rebuildSearchIndex, searchRows } from '../../src/content/search-store.js';
import { parseSearchQuery } from '../../src/content/search-terms.js';

const titles = (body: any) => body.data.articles.map((a: any) => a.title);

describe(`GET /articles?q= (search, ${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture();
    await f.publish({ title: 'Pruning roses in winter', bodyMarkdown: '## When to cut\n\nCut the canes back after the frost. Compost helps.', contentType: 'GUIDE', focusKeyword: 'Roses' });
    await f.publish({ title: 'A year of gardening', bodyMarkdown: '## Spring\n\nWe talk about many things, roses included, and compost.', focusKeyword: 'Garden' });
    await f.publish({ title: 'Compost basics', bodyMarkdown: '## Greens and browns\n\nLayer them.', contentType: 'HOW_TO', focusKeyword: 'Compost' });
    await f.publish({ title: '京都の喫茶店めぐり', bodyMarkdown: '## 老舗の珈琲\n\n京都には古い喫茶店がたくさんあります。東京とは違う雰囲気です。' });
    await f.publish({ title: '東京の公園', bodyMarkdown: '## 春の桜\n\n上野公園の桜はとても有名です。' });
    await f.publish({ title: 'Crème brûlée at home', bodyMarkdown: '## Caramélisation\n\nA torch makes the crust.' });
    await f.publish({ title: '한글 배우기', bodyMarkdown: '## 자음과 모음\n\n서울에서 한국어를 공부합니다.' });
  });
  afterAll(() => f.d.stop());

  it('returns a Page of the published articles that match, title and headings before the body', async () => {
    const body = await f.json('/articles?q=roses');
    expect(titles(body)).toEqual(['Pruning roses in winter', 'A year of gardening']);
    expect(body.data).toMatchObject({ total: 2, page: 0, limit: 10 });
    expect(Object.keys(body.data.articles[0])).toContain('metaDescription');
    // A heading counts like the title: "Spring" is a heading of one, not in the other's text at all.
    const compost = await f.json('/articles?q=compost');
    expect(compost.data.total).toBe(3);
    expect(titles(await f.json('/articles?q=compost'))[0]).toBe('Compost basics');
    expect(titles(await f.json('/articles?q=SPRING'))).toEqual(['A year of gardening']);
  });

  it('every word must match; paging, category and tag apply as in lists', async () => {
    expect(titles(await f.json('/articles?q=roses%20frost'))).toEqual(['Pruning roses in winter']);
    expect(titles(await f.json('/articles?q=roses%20nowhere'))).toEqual([]);
    expect(titles(await f.json('/articles?q=compost&category=how-to'))).toEqual(['Compost basics']);
    expect(titles(await f.json('/articles?q=compost&tag=roses'))).toEqual(['Pruning roses in winter']);
    const second = await f.json('/articles?q=compost&limit=1&page=1');
    expect(second.data).toMatchObject({ total: 3, page: 1, limit: 1 });
    expect(second.data.articles).toHaveLength(1);
    expect((await f.json('/articles?q=compost&page=5')).data).toMatchObject({ articles: [], total: 3 });
  });

  it('finds Japanese and Korean words inside unspaced text, and accented words with or without accents', async () => {
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('京都')}`))).toEqual(['京都の喫茶店めぐり']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('喫茶店')}`))).toEqual(['京都の喫茶店めぐり']);
    // 東京 is in one title and in the other's body: the title wins.
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('東京')}`))).toEqual(['東京の公園', '京都の喫茶店めぐり']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('上野公園の桜')}`))).toEqual(['東京の公園']);
    // Adjacent characters, in this order: 京東 is in neither.
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('京東')}`))).toEqual([]);
    // One character finds every article that has it.
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('桜')}`))).toEqual(['東京の公園']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('서울')}`))).toEqual(['한글 배우기']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('한국어')}`))).toEqual(['한글 배우기']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('creme brulee')}`))).toEqual(['Crème brûlée at home']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('CRÈME')}`))).toEqual(['Crème brûlée at home']);
    // NFD input (macOS) and full-width Latin find the same.
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('caramélisation'.normalize('NFD'))}`))).toEqual(['Crème brûlée at home']);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('ＣＲＵＳＴ')}`))).toEqual(['Crème brûlée at home']);
  });

  it('query syntax is text: quotes, operators and wildcards are searched for, never run', async () => {
    for (const q of ['"roses', 'roses OR compost', 'NEAR(roses)', 'roses*', "'roses' & !", 'title:roses', '-roses', 'roses AND']) {
      const res = await f.api(`/articles?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('roses OR compost')}`))).toEqual([]);
  });

  it('an empty, blank, letterless, repeated or over-long q is a 400 naming q', async () => {
    for (const q of ['q=', 'q=%20%20', 'q=!!!', 'q=a&q=b', `q=${'a'.repeat(201)}`]) {
      const res = await f.api(`/articles?${q}`);
      expect(res.status, q).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({ code: 'invalid_parameter', parameter: 'q' });
      expect(body.error.message).toMatch(/q parameter/);
    }
    expect((await f.api(`/articles?q=${'a'.repeat(200)}`)).status).toBe(200);
  });

  it('finds only what is served: drafts and unpublished edits never match; unpublish and delete remove', async () => {
    const ws = await getWorkspace(f.d.app, f.ws.id);
    await seedArticle(f.d.app, ws, { title: 'Secret draft about marmalade' });
    expect(titles(await f.json('/articles?q=marmalade'))).toEqual([]);

    const a = await f.publish({ title: 'Apricot jam', bodyMarkdown: '## Sugar\n\nApricots and sugar.' });
    expect(titles(await f.json('/articles?q=apricot'))).toEqual(['Apricot jam']);
    await updateArticle(f.d.app, ws, a.id, { title: 'Quince jelly', bodyMarkdown: '## Quince\n\nQuinces.' });
    expect(titles(await f.json('/articles?q=quince'))).toEqual([]); // edited, not republished
    expect(titles(await f.json('/articles?q=apricot'))).toEqual(['Apricot jam']);

    await unpublishArticle(f.d.app, ws, a.id);
    expect(titles(await f.json('/articles?q=apricot'))).toEqual([]);

    const b = await f.publish({ title: 'Fig chutney' });
    expect(titles(await f.json('/articles?q=chutney'))).toEqual(['Fig chutney']);
    await deleteArticle(f.d.app, ws, b.id);
    expect(titles(await f.json('/articles?q=chutney'))).toEqual([]);
  });

  it('ranks and counts at most MATCH_CAP matches, so a word in every article costs no more than in a thousand', async () => {
    expect(MATCH_CAP).toBe(1000);
    const all = await searchRows(f.d.app.db, f.ws.id, parseSearchQuery('compost'), { offset: 0, limit: 10 });
    expect(all.total).toBe(3);
    const capped = await searchRows(f.d.app.db, f.ws.id, parseSearchQuery('compost'), { offset: 0, limit: 10, cap: 2 });
    expect(capped.total).toBe(2);
    expect(capped.rows).toHaveLength(2);
    if (!PG_URL) {
      // SQLite keeps the most recently indexed: the first published of the three is left out.
      expect(capped.rows.map((r) => JSON.parse(r).title).sort()).toEqual(['A year of gardening', 'Compost basics']);
    }
  });

  it('another workspace never finds these articles', async () => {
    const other = await contentFixture();
    try {
      await other.publish({ title: 'Roses elsewhere' });
      expect(titles(await other.json('/articles?q=roses'))).toEqual(['Roses elsewhere']);
    } finally {
      await other.d.stop();
    }
  });

  it('rebuilding the index (the migrations, db copy) indexes snapshots published before search existed', async () => {
    const db = f.d.app.db;
    await clearIndex(db);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('喫茶店')}&limit=2`))).toEqual([]);
    await rebuildSearchIndex(db);
    expect(titles(await f.json(`/articles?q=${encodeURIComponent('喫茶店')}&limit=1`))).toEqual(['京都の喫茶店めぐり']);
  });
});

/** The index as it was before the fill migration ran: empty (its down()). */
const clearIndex = (db: Parameters<typeof fill.down>[0]) => fill.down(db);
