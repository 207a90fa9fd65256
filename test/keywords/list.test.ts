import { describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import { seedArticle } from '../helpers/seed.js';
import { keywordWorkspace } from './setup.js';

describe('list_keywords (MCP): the keywords of a workspace and the articles that target them', () => {
  it('a read connection lists each keyword with the article that targets it, conflicts, gaps and untracked keywords', async () => {
    const { d, ws, agent } = await keywordWorkspace();
    const researcher = await agent(['read', 'content']);
    await researcher.call('research_keywords', { keywords: ['cold brew coffee', 'iced latte', 'french press', 'pour over coffee'] });
    // Matched by normalised form: case, NFC and white space do not matter.
    const brew = await seedArticle(d.app, ws, { title: 'Cold brew at home', slug: 'cold-brew-at-home', focusKeyword: 'Cold  Brew Coffee', secondaryKeywords: ['iced latte'] });
    await seedArticle(d.app, ws, { title: 'The iced latte', slug: 'iced-latte', focusKeyword: 'ICED LATTE' });
    const latte2 = await seedArticle(d.app, ws, { title: 'Iced latte, again', slug: 'iced-latte-again', focusKeyword: 'iced latte' });
    await seedArticle(d.app, ws, { title: 'Café culture', slug: 'cafe-culture', focusKeyword: 'cafe\u0301 culture' }); // decomposed é, not researched
    // Two focus articles on a keyword nobody researched: a conflict all the same.
    await seedArticle(d.app, ws, { title: 'Tea one', slug: 'tea-one', focusKeyword: 'matcha latte' });
    await seedArticle(d.app, ws, { title: 'Tea two', slug: 'tea-two', focusKeyword: 'Matcha Latte' });

    const reader = await agent(['read']);
    const res = await reader.call('list_keywords', { sort: 'keyword' });
    expect(res.isError).toBeFalsy();
    const page = res.structuredContent as any;
    expect(page.counts).toEqual({ stored: 4, targeted: 2, gaps: 2, conflicts: 2, untracked: 2 });
    const byKeyword = Object.fromEntries(page.keywords.map((k: any) => [k.normalized, k]));
    expect(Object.keys(byKeyword)).toEqual(['café culture', 'cold brew coffee', 'french press', 'iced latte', 'matcha latte', 'pour over coffee']);
    expect(byKeyword['matcha latte']).toMatchObject({ status: 'untracked', conflict: true });
    expect(byKeyword['cold brew coffee']).toMatchObject({ status: 'targeted', conflict: false, targets: [{ articleId: brew.id, slug: 'cold-brew-at-home', title: 'Cold brew at home', status: 'draft', role: 'focus' }] });
    expect(byKeyword['cold brew coffee'].searchVolume).toBeGreaterThan(0);
    expect(byKeyword['iced latte']).toMatchObject({ status: 'conflict', conflict: true });
    expect(byKeyword['iced latte'].targets.map((t: any) => [t.slug, t.role])).toEqual([
      ['iced-latte', 'focus'],
      ['iced-latte-again', 'focus'],
      ['cold-brew-at-home', 'secondary'],
    ]);
    expect(byKeyword['french press']).toMatchObject({ status: 'gap', targets: [] });
    expect(byKeyword['café culture']).toMatchObject({ status: 'untracked', id: null, searchVolume: null, targets: [{ slug: 'cafe-culture', role: 'focus' }] });
    expect(res.text).toContain('4 stored keywords: 2 targeted by articles, 2 gaps, 2 conflicts; 2 untracked (targeted, not researched).');
    expect(res.text).toContain('- matcha latte: CONFLICT: focus keyword of tea-one, tea-two; not researched');
    expect(res.text).toContain('- cold brew coffee [2840/en]: volume ');
    expect(res.text).toContain('; targeted by cold-brew-at-home (focus)');
    expect(res.text).toContain('- iced latte [2840/en]: ');
    expect(res.text).toContain('; CONFLICT: focus keyword of iced-latte, iced-latte-again');
    expect(res.text).toContain('; gap: no article targets it');
    expect(res.text).toContain('- cafe\u0301 culture: not researched; targeted by cafe-culture (focus)');

    // Filters: the conflicts, the gaps; resolving the conflict moves it.
    const conflicts = (await reader.call('list_keywords', { status: 'conflicts', sort: 'keyword' })).structuredContent as any;
    expect(conflicts.keywords.map((k: any) => k.normalized)).toEqual(['iced latte', 'matcha latte']);
    const gaps = (await reader.call('list_keywords', { status: 'gaps' })).structuredContent as any;
    expect(gaps.keywords.map((k: any) => k.normalized).sort()).toEqual(['french press', 'pour over coffee']);
    await updateArticle(d.app, ws, latte2.id, { focusKeyword: 'french press' });
    const after = (await reader.call('list_keywords', { status: 'gaps' })).structuredContent as any;
    expect(after.keywords.map((k: any) => k.normalized)).toEqual(['pour over coffee']);
    expect((await reader.call('list_keywords', { status: 'conflicts' })).structuredContent).toMatchObject({ total: 1, keywords: [{ normalized: 'matcha latte' }] });
  });

  it('filters, sorts and pages', async () => {
    const { agent } = await keywordWorkspace();
    const a = await agent();
    // Fake metrics grow with length: volume 10 x chars^2, KD 3 x chars.
    await a.call('research_keywords', { keywords: ['tea', 'green tea', 'buy green tea', 'best green tea online'] });
    const list = async (args: Record<string, unknown>) => ((await a.call('list_keywords', args)).structuredContent as any).keywords.map((k: any) => k.keyword);
    expect(await list({})).toEqual(['best green tea online', 'buy green tea', 'green tea', 'tea']);
    expect(await list({ sort: 'difficulty' })).toEqual(['tea', 'green tea', 'buy green tea', 'best green tea online']);
    expect(await list({ sort: 'keyword', order: 'desc' })).toEqual(['tea', 'green tea', 'buy green tea', 'best green tea online']);
    expect(await list({ query: 'GREEN' })).toEqual(['best green tea online', 'buy green tea', 'green tea']);
    expect(await list({ intent: 'transactional' })).toEqual(['buy green tea']);
    expect(await list({ minVolume: 800, maxDifficulty: 40 })).toEqual(['buy green tea', 'green tea']);
    const page = (await a.call('list_keywords', { limit: 2, offset: 1 })) as any;
    expect(page.structuredContent).toMatchObject({ total: 4, limit: 2, offset: 1, nextOffset: 3 });
    expect(page.structuredContent.keywords.map((k: any) => k.keyword)).toEqual(['buy green tea', 'green tea']);
    expect(page.text).toContain('Showing 2-3 of 4:');
    expect(page.text).toContain('More: call again with offset 3.');
    const bad = await a.call('list_keywords', { status: 'lost' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/^Invalid keyword list options: status: /);
  });
});
