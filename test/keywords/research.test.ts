import { describe, expect, it } from 'vitest';
import { setMemberRole } from '../../src/accounts/members.js';
import { seedUser } from '../helpers/seed.js';
import { type Answer, ERRORS, envelope, metricsOf } from './fake-dataforseo.js';
import { keywordWorkspace, lookupsLine } from './setup.js';

const DAY = 86_400_000;

describe('research_keywords (MCP) against DataForSEO', () => {
  it('answers metrics for each keyword, spends one credit per keyword sent, and the profile line moves by what was spent', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 10 });
    const a = await agent();
    expect(await lookupsLine(a)).toBe('Keyword lookups: 0/10');
    // "Cold Brew  Coffee" and "cold brew coffee" are one keyword (case, spaces): sent and paid once.
    const res = await a.call('research_keywords', { keywords: ['Cold Brew  Coffee', 'cold brew coffee', 'iced coffee', 'buy coffee beans'] });
    expect(res.isError).toBeFalsy();
    expect(fake.volumeKeywords()).toEqual(['Cold Brew Coffee', 'iced coffee', 'buy coffee beans']);
    const m = metricsOf('cold brew coffee');
    expect(res.text).toContain(`Keyword data from DataForSEO for location 2840, language en.`);
    expect(res.text).toContain('3 looked up now (3 keyword lookup credits spent), 0 from the store (free). Keyword lookups this month: 3/10.');
    expect(res.text).toContain(`- Cold Brew Coffee: volume ${m.volume.toLocaleString('en-US')}/month, KD ${m.difficulty}, CPC $${m.cpc.toFixed(2)}, competition LOW (0.32), informational`);
    expect(res.text).toMatch(/trend: 2025-11 \d[\d,]* -> 2026-10 \d[\d,]* \([+-]\d+%\), peak \d{4}-\d{2} \d/); // the months are in the structured part
    const data = res.structuredContent as any;
    expect(data).toMatchObject({ provider: 'dataforseo', location: '2840', language: 'en', spent: 3, usage: { used: 3, allowed: 10 } });
    expect(data.keywords).toHaveLength(3);
    expect(data.keywords[2]).toMatchObject({ keyword: 'buy coffee beans', normalized: 'buy coffee beans', intent: 'transactional', searchVolume: metricsOf('buy coffee beans').volume, source: 'dataforseo', fromStore: false });
    expect(data.keywords[0].monthlySearches).toHaveLength(12);
    expect(data.keywords[0].monthlySearches[0]).toEqual({ month: '2025-11', searchVolume: m.volume + 110 });
    expect(await lookupsLine(a)).toBe('Keyword lookups: 3/10');
    // Every endpoint got the same location and language; intent takes the language only.
    expect(fake.requests.map((r) => [r.path.split('/').slice(-2)[0], r.task.location_code, r.task.language_code]).sort()).toEqual([
      ['bulk_keyword_difficulty', 2840, 'en'],
      ['search_intent', undefined, 'en'],
      ['search_volume', 2840, 'en'],
    ]);
  });

  it('answers keywords looked up less than 30 days ago from the store, free and without a provider call', async () => {
    const { agent, fake, clock } = await keywordWorkspace({ allowance: 10 });
    const a = await agent();
    await a.call('research_keywords', { keywords: ['french press'] });
    const calls = fake.requests.length;
    clock.advance(29 * DAY);
    const again = await a.call('research_keywords', { keywords: ['FRENCH PRESS', 'aeropress'] });
    expect(fake.volumeKeywords()).toEqual(['french press', 'aeropress']);
    expect(again.text).toContain('1 looked up now (1 keyword lookup credit spent), 1 from the store (free).');
    expect((again.structuredContent as any).keywords.map((k: any) => [k.keyword, k.fromStore])).toEqual([
      ['french press', true],
      ['aeropress', false],
    ]);
    expect(fake.requests.length).toBe(calls + 3);
    // Older than 30 days: looked up again (and paid again).
    clock.advance(2 * DAY);
    const late = await a.call('research_keywords', { keywords: ['french press'] });
    expect((late.structuredContent as any).spent).toBe(1);
    expect(fake.volumeKeywords()).toEqual(['french press', 'aeropress', 'french press']);
  });

  it('refuses a call the remaining allowance cannot cover, whole, before any provider call, spending nothing', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 4 });
    const a = await agent();
    await a.call('research_keywords', { keywords: ['one', 'two'] });
    const before = fake.requests.length;
    const refused = await a.call('research_keywords', { keywords: ['three', 'four', 'five'] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^This workspace has 2 of its 4 keyword lookups credits left this month \(\d{4}-\d{2}\) and this needs 3; nothing was spent\. Ask for fewer, or the operator can raise it with svc workspaces set --allowance keywords=N$/);
    expect(fake.requests.length).toBe(before);
    expect(await lookupsLine(a)).toBe('Keyword lookups: 2/4');
    // Stored keywords cost nothing, so a call mixing them with new ones needs only the new ones.
    expect((await a.call('research_keywords', { keywords: ['one', 'two', 'three', 'four'] })).isError).toBeFalsy();
    expect(await lookupsLine(a)).toBe('Keyword lookups: 4/4');
    const exhausted = await a.call('research_keywords', { keywords: ['five'] });
    expect(exhausted.text).toMatch(/^This workspace has used all 4 keyword lookups credits of its monthly allowance/);
    // Still free from the store with nothing left.
    expect((await a.call('research_keywords', { keywords: ['one'] })).isError).toBeFalsy();
  });

  it('does not overspend when calls arrive at the same moment', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 5 });
    const agents = await Promise.all([agent(), agent(), agent()]);
    const results = await Promise.all(agents.map((a, i) => a.call('research_keywords', { keywords: [`alpha ${i}`, `beta ${i}`, `gamma ${i}`] })));
    const ok = results.filter((r) => !r.isError);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.isError)) expect(r.text).toMatch(/credits left this month .* and this needs 3; nothing was spent/);
    expect(fake.volumeKeywords()).toHaveLength(3);
    expect(await lookupsLine(agents[0])).toBe('Keyword lookups: 3/5');
  });

  it('turns provider failures into tool errors that name DataForSEO and spend nothing', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 10 });
    const a = await agent();
    const cases: Array<[keyof typeof ERRORS, RegExp]> = [
      ['auth', /^DataForSEO refused the API login \(40100 You are not authorized to access this resource\. .*\)\. The operator must check keywords\.dataforseo\.login and keywords\.dataforseo\.password .* No keyword lookup credit was spent\.$/],
      ['payment', /^DataForSEO refused the request for billing reasons \(40200 Payment Required\)\. The DataForSEO account needs funds .* No keyword lookup credit was spent\.$/],
      ['rate', /^DataForSEO is rate-limiting this account \(40202 Rate-limit per minute exceeded\)\. .*try again in a minute\. No keyword lookup credit was spent\.$/],
      ['invalidField', /^DataForSEO refused a field of the request \(40501 Invalid Field: 'location_name'\)\. Check the location and language .* No keyword lookup credit was spent\.$/],
    ];
    for (const [error, message] of cases) {
      // Only the first of the parallel endpoint calls fails: the whole lookup fails.
      fake.queue(ERRORS[error]);
      const res = await a.call('research_keywords', { keywords: ['pour over'], location: 'United States' });
      expect(res.isError, error).toBe(true);
      expect(res.text, error).toMatch(message);
      expect(await lookupsLine(a), error).toBe('Keyword lookups: 0/10');
    }
    // The same codes inside an HTTP 200 envelope, at the top or in the task; and answers that are not DataForSEO's.
    const more: Array<[Answer, RegExp]> = [
      [{ body: { ...ERRORS.auth.body } }, /^DataForSEO refused the API login \(40100 /],
      [{ body: envelope(null, {}, 40210, 'You don’t have enough funds.') }, /^DataForSEO refused the request for billing reasons \(40210 You don’t have enough funds\)/],
      [{ http: 404, body: '<html>Not Found</html>' }, /^DataForSEO answered with an error \(HTTP 404\)\. Check keywords\.dataforseo\.baseUrl/],
      [{ http: 200, body: 'not json' }, /^DataForSEO answered HTTP 200 with a body that is not JSON at \/v3\/.*\. Check keywords\.dataforseo\.baseUrl/],
    ];
    for (const [answer, message] of more) {
      fake.queue(answer);
      const res = await a.call('research_keywords', { keywords: ['pour over'] });
      expect(res.text).toMatch(message);
      expect(res.text).toMatch(/No keyword lookup credit was spent\.$/);
    }
    expect(await lookupsLine(a)).toBe('Keyword lookups: 0/10');
    // Nothing was stored either.
    expect((await a.call('list_keywords')).structuredContent).toMatchObject({ total: 0 });
  });

  it('retries a 5xx answer, then succeeds, or gives up after the configured retries', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 10, overrides: { 'keywords.dataforseo.retries': 2 } });
    const a = await agent();
    fake.queue(ERRORS.server);
    const ok = await a.call('research_keywords', { keywords: ['moka pot'] });
    expect(ok.isError).toBeFalsy();
    expect(fake.requests.filter((r) => r.path.includes('search_volume') || r.path.includes('difficulty') || r.path.includes('intent'))).toHaveLength(4);
    fake.queue(ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server, ERRORS.server);
    const down = await a.call('research_keywords', { keywords: ['chemex'] });
    expect(down.text).toMatch(/^DataForSEO answered with an error \(HTTP 500, 50000 Internal Error\.\); tried 3 times\. Try again later\. No keyword lookup credit was spent\.$/);
    expect(await lookupsLine(a)).toBe('Keyword lookups: 1/10');
  });

  it('times out a provider that does not answer, spending nothing', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 10, overrides: { 'keywords.dataforseo.timeout': 300 } });
    const a = await agent();
    fake.hold();
    const res = await a.call('research_keywords', { keywords: ['siphon coffee'] });
    fake.release();
    expect(res.text).toBe('DataForSEO did not answer within 300 ms (keywords.dataforseo.timeout). Try again later. No keyword lookup credit was spent.');
    expect(await lookupsLine(a)).toBe('Keyword lookups: 0/10');
  });

  it('returns keyword ideas when asked, stores them, and answers them from the store for 30 days', async () => {
    const { agent, fake } = await keywordWorkspace({ allowance: 10 });
    const a = await agent();
    const res = await a.call('research_keywords', { keywords: ['espresso'], includeIdeas: true, ideasLimit: 2 });
    expect(res.isError).toBeFalsy();
    const ideas = (res.structuredContent as any).ideas;
    // The seed itself is not an idea; most searched first.
    expect(ideas.map((i: any) => i.keyword)).toEqual(['espresso recipe', 'best espresso']);
    expect(ideas[1]).toMatchObject({ difficulty: metricsOf('best espresso').difficulty, intent: 'commercial', source: 'dataforseo' });
    expect(res.text).toContain('Ideas (2, most searched first):\n- espresso recipe: volume');
    expect((res.structuredContent as any).spent).toBe(1);
    const calls = fake.requests.length;
    const again = await a.call('research_keywords', { keywords: ['espresso'], includeIdeas: true, ideasLimit: 2 });
    expect(fake.requests.length).toBe(calls);
    expect((again.structuredContent as any).ideas.map((i: any) => i.keyword)).toEqual(['espresso recipe', 'best espresso']);
    // Ideas are stored keywords: researching one is free, and they list as gaps.
    expect((await a.call('research_keywords', { keywords: ['espresso recipe'] })).structuredContent).toMatchObject({ spent: 0 });
    const gaps = await a.call('list_keywords', { status: 'gaps' });
    expect((gaps.structuredContent as any).keywords.map((k: any) => k.keyword).sort()).toEqual(['best espresso', 'espresso', 'espresso recipe']);
  });

  it('refuses research without the content scope and to viewers; read lists', async () => {
    const { d, ws, admin, agent } = await keywordWorkspace();
    const reader = await agent(['read']);
    expect(await reader.call('research_keywords', { keywords: ['x coffee'] })).toMatchObject({ isError: true, text: 'This connection was not granted the `content` scope' });
    expect((await reader.call('list_keywords')).isError).toBeFalsy();
    const writer = await agent(['content']);
    expect(await writer.call('list_keywords')).toMatchObject({ isError: true, text: 'This connection was not granted the `read` scope' });
    const both = await agent(['read', 'content']);
    await seedUser(d.app, ws, 'admin'); // the last admin cannot be demoted
    await setMemberRole(d.app, ws.id, admin.email, 'viewer');
    expect(await both.call('research_keywords', { keywords: ['x coffee'] })).toMatchObject({ isError: true, text: 'This needs the editor role; you are a viewer in this workspace' });
    expect((await both.call('list_keywords')).isError).toBeFalsy();
  });

  it('refuses bad input with the field named, spending nothing', async () => {
    const { agent, fake } = await keywordWorkspace();
    const a = await agent();
    const empty = await a.call('research_keywords', { keywords: [] });
    expect(empty).toMatchObject({ isError: true });
    expect(empty.text).toMatch(/^Invalid keyword research: keywords: give at least one keyword/);
    const long = await a.call('research_keywords', { keywords: ['a b c d e f g h i j k'] });
    expect(long.text).toMatch(/a keyword is at most 10 words \(Google Ads limit\)/);
    const blank = await a.call('research_keywords', { keywords: ['   '] });
    expect(blank.text).toMatch(/a keyword may not be empty/);
    expect(fake.requests).toHaveLength(0);
  });

  it('with keywords.provider none, says how the operator enables a provider; list_keywords still works', async () => {
    const { agent } = await keywordWorkspace({ provider: 'none' });
    const a = await agent();
    const res = await a.call('research_keywords', { keywords: ['tea'] });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/^Keyword lookups are off: no keyword data provider is configured\. The operator enables DataForSEO with keywords\.provider: dataforseo .*SVC_KEYWORDS_PROVIDER=dataforseo/);
    expect((await a.call('list_keywords')).isError).toBeFalsy();
    expect(await lookupsLine(a)).toBe('Keyword lookups: 0/100');
  });
});
