import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectCleanError, initialised } from '../cli/sandbox.js';
import { TestClock } from '../helpers/clock.js';
import { startFakeDataForSeo } from './fake-dataforseo.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

async function box() {
  const b = await initialised();
  for (const f of ['keyword-planner.csv', 'search-console-queries.csv', 'semrush-keyword-magic.csv', 'ahrefs-keywords-explorer.csv', 'semrush-broken.csv']) copyFileSync(path.join(FIXTURES, f), path.join(b.dir, f));
  const keywords = async (args: string[] = []) => (await b.json(['keywords', 'list', '--sort', 'keyword', ...args])).keywords as any[];
  return { ...b, keywords };
}

describe('svc keywords import', () => {
  it('imports a Keyword Planner export (UTF-16, tabs, two lines above the header) with its monthly searches', async () => {
    const b = await box();
    const r = await b.cli(['keywords', 'import', 'keyword-planner.csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Imported 3 keywords from Google Keyword Planner (3 new, 0 updated) for location 2840, language en\n');
    expect(r.stderr).toBe('');
    const [coldBrew, maker, latte] = await b.keywords();
    expect(coldBrew).toMatchObject({ keyword: 'cold brew coffee', location: '2840', language: 'en', searchVolume: 12100, competitionLevel: 'LOW', competition: 0.14, cpc: null, source: 'keyword-planner', researchedAt: null, status: 'gap' });
    expect(coldBrew.monthlySearches).toHaveLength(12);
    expect(coldBrew.monthlySearches[0]).toEqual({ month: '2025-05', searchVolume: 9900 });
    expect(coldBrew.monthlySearches[11]).toEqual({ month: '2026-04', searchVolume: 14800 });
    expect(latte).toMatchObject({ keyword: 'iced latte recipe', competitionLevel: 'MEDIUM', competition: 0.41 });
    expect(maker).toMatchObject({ keyword: 'cold brew maker', competitionLevel: 'HIGH', competition: 1, monthlySearches: [] });
  });

  it('imports Search Console queries (UTF-8 with BOM): clicks, impressions and position join what is stored', async () => {
    const b = await box();
    await b.json(['keywords', 'import', 'keyword-planner.csv']);
    const r = await b.json(['keywords', 'import', 'search-console-queries.csv']);
    expect(r).toMatchObject({ format: { id: 'search-console', name: 'Google Search Console' }, created: 2, updated: 1, unrecognised: [] });
    const byKeyword = Object.fromEntries((await b.keywords()).map((k) => [k.keyword, k]));
    // The planner's volume stays, and so does its source: Search Console has no volumes.
    expect(byKeyword['cold brew coffee']).toMatchObject({ searchVolume: 12100, clicks: 120, impressions: 3400, position: 7.2, source: 'keyword-planner' });
    expect(byKeyword['cold brew, concentrate']).toMatchObject({ searchVolume: null, clicks: 9, impressions: 410, position: 11.8, source: 'search-console' });
    expect(byKeyword['how long to steep cold brew']).toMatchObject({ impressions: 1290 });
  });

  it('imports a Semrush export, reports the columns it does not know, and keeps stored values where a cell is empty', async () => {
    const b = await box();
    await b.json(['keywords', 'import', 'keyword-planner.csv']);
    const r = await b.cli(['keywords', 'import', 'semrush-keyword-magic.csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('Not imported: column "My notes" (not recognised for Semrush)\n');
    expect(r.stdout).toBe('Imported 3 keywords from Semrush (2 new, 1 updated) for location 2840, language en\n');
    const byKeyword = Object.fromEntries((await b.keywords()).map((k) => [k.keyword, k]));
    expect(byKeyword['cold brew coffee']).toMatchObject({ searchVolume: 12100, difficulty: 64, cpc: 1.23, competition: 0.31, intent: 'informational', source: 'semrush', competitionLevel: 'LOW' });
    // The planner's monthly searches stay: Semrush's trend is relative, without months.
    expect(byKeyword['cold brew coffee'].monthlySearches).toHaveLength(12);
    expect(byKeyword['best cold brew coffee maker']).toMatchObject({ difficulty: null, intent: 'commercial', competition: 1 });
    expect(byKeyword['cold brew ratio']).toMatchObject({ cpc: 0, difficulty: 21 });
  });

  it('imports an Ahrefs export (UTF-16, tabs) and says when its country is not the location used', async () => {
    const b = await box();
    const r = await b.cli(['keywords', 'import', 'ahrefs-keywords-explorer.csv', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ format: { id: 'ahrefs' }, created: 2, countries: ['us'], unrecognised: [] });
    expect(r.stderr).toBe(''); // with --json the result says it (countries, location), stderr stays empty
    const human = await b.cli(['keywords', 'import', 'ahrefs-keywords-explorer.csv']);
    expect(human.stderr).toBe('The file names the country us; the keywords were stored for location 2840. Pass --location to choose another.\n');
    const [coldBrew, nitro] = await b.keywords();
    expect(coldBrew).toMatchObject({ keyword: 'cold brew coffee', difficulty: 38, searchVolume: 11000, cpc: 1.1, intent: 'informational', source: 'ahrefs' });
    expect(nitro).toMatchObject({ keyword: 'nitro cold brew', intent: 'commercial' });
    const uk = await b.json(['keywords', 'import', 'ahrefs-keywords-explorer.csv', '--location', 'United Kingdom', '--language', 'English']);
    expect(uk).toMatchObject({ created: 2, location: 'United Kingdom', language: 'English' });
    expect((await b.keywords(['--location', 'United Kingdom'])).map((k) => k.keyword)).toEqual(['cold brew coffee', 'nitro cold brew']);
  });

  it('checks the whole file first: with any bad row nothing is written, and the problems are listed by line', async () => {
    const b = await box();
    const r = await b.cli(['keywords', 'import', 'semrush-broken.csv']);
    expectCleanError(r, 1, 'error: Nothing imported; fix semrush-broken.csv first:\n  line 3: Volume "lots" is not a number\n  line 4: Keyword Difficulty "140" is not between 0 and 100\n');
    expect(await b.keywords()).toEqual([]);
    const json = await b.cli(['keywords', 'import', 'semrush-broken.csv', '--json']);
    expect(json.json()).toMatchObject({ error: { code: 'invalid_csv' } });
  });

  it('refuses files that are not keyword exports, with a message for a person', async () => {
    const b = await box();
    writeFileSync(path.join(b.dir, 'latin1.csv'), Buffer.from([0x4b, 0x65, 0x79, 0x77, 0x6f, 0x72, 0x64, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expectCleanError(await b.cli(['keywords', 'import', 'latin1.csv']), 1, 'error: latin1.csv is neither UTF-8 nor UTF-16 text; export it again as CSV (UTF-8 or UTF-16)');
    writeFileSync(path.join(b.dir, 'other.csv'), 'name,price\ncoffee,3\n');
    expectCleanError(await b.cli(['keywords', 'import', 'other.csv']), 1, 'error: other.csv has no keyword column: expected the export of Google Keyword Planner, Google Search Console, Semrush or Ahrefs, or a CSV with a "Keyword" column');
    writeFileSync(path.join(b.dir, 'empty.csv'), 'Keyword,Volume\n');
    expectCleanError(await b.cli(['keywords', 'import', 'empty.csv']), 1, 'error: empty.csv holds no keywords');
    expectCleanError(await b.cli(['keywords', 'import', 'missing.csv']), 1, `error: No such file: ${path.join(b.dir, 'missing.csv')}`);
    mkdirSync(path.join(b.dir, 'folder.csv'));
    expectCleanError(await b.cli(['keywords', 'import', 'folder.csv']), 1, `error: ${path.join(b.dir, 'folder.csv')} is a directory, not a CSV file`);
    writeFileSync(path.join(b.dir, 'long.csv'), `Keyword\n${'x'.repeat(201)}\n`);
    expectCleanError(await b.cli(['keywords', 'import', 'long.csv']), 1, 'line 2: the keyword is longer than 200 characters');
    expect(await b.keywords()).toEqual([]);
  });
});

describe('svc keywords lookup, list and remove', () => {
  it('looks keywords up with the same credits and cache as the agent tool', async () => {
    const b = await box();
    const fake = await startFakeDataForSeo();
    // Real processes whose Date reads mid-month: credits are counted per calendar month, and the
    // lookups and the show that reads them back must not straddle the real month's end.
    const clockEnv = TestClock.midMonth().childEnv();
    const cli = (args: string[]) => b.spawn(args, { env: { ...fake.env, ...clockEnv } });
    await b.json(['workspaces', 'set', '--allowance', 'keywords=3', '--keyword-location', '2826', '--keyword-language', 'en']);
    await b.json(['keywords', 'import', 'keyword-planner.csv']); // stored for 2826 now, but never looked up
    const first = await cli(['keywords', 'lookup', 'cold brew coffee', 'aeropress']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^KEYWORD +VOLUME +KD +CPC +COMPETITION +INTENT +FROM\ncold brew coffee +2560 +48 +2\.10 +LOW +informational +DataForSEO\naeropress +810 +27 +1\.40 +LOW +informational +DataForSEO\n/);
    expect(first.stdout).toContain('2 keyword lookup credits spent (location 2826, language en); Keyword lookups: 2/3\n');
    expect(fake.requests[0].task).toMatchObject({ location_code: 2826, language_code: 'en' });
    const again = await cli(['keywords', 'lookup', 'aeropress', 'moka pot', '--json']);
    expect(again.json()).toMatchObject({ spent: 1, sent: ['moka pot'], usage: { used: 3, allowed: 3 } });
    const refused = await cli(['keywords', 'lookup', 'chemex']);
    expectCleanError(refused, 1, 'error: This workspace has used all 3 keyword lookups credits of its monthly allowance');
    expect(fake.volumeKeywords()).toEqual(['cold brew coffee', 'aeropress', 'moka pot']);
    const show = await cli(['workspaces', 'show']);
    expect(show.stdout).toContain('    Keyword lookups: 3/3\n');
    expect(show.stdout).toContain('  Keywords:      location 2826, language en\n');
    await b.json(['workspaces', 'set', '--keyword-location', '']);
    expect((await b.cli(['workspaces', 'show'])).stdout).toContain('  Keywords:      location 2840, language en (unset ones are the fallback)\n');
    expectCleanError(await b.cli(['workspaces', 'set', '--keyword-language', 'x'.repeat(51)]), 1, 'language is at most 50 characters');
  });

  it('lists keywords as a table and removes them (with --yes in scripts)', async () => {
    const b = await box();
    await b.json(['keywords', 'import', 'semrush-keyword-magic.csv']);
    await b.json(['articles', 'add', '--title', 'Cold brew', '--focus-keyword', 'Cold Brew Coffee']);
    const list = await b.cli(['keywords', 'list', '--sort', 'keyword']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^KEYWORD +WHERE +VOLUME +KD +CPC +INTENT +STATUS +ARTICLES\n/);
    expect(list.stdout).toMatch(/\ncold brew coffee +2840\/en +12100 +64 +1\.23 +informational +targeted +cold-brew \(focus\)\n/);
    expect(list.stdout).toMatch(/\ncold brew ratio +2840\/en +880 +21 +0\.00 +informational +gap +-\n/);
    expect(list.stdout).toContain('\n3 shown of 3 stored (1 targeted, 2 gaps, 0 conflicts) and 0 untracked\n');
    expectCleanError(await b.cli(['keywords', 'list', '--min-volume', 'lots']), 2, '--min-volume takes a whole number of at least 0, not "lots"');
    expectCleanError(await b.cli(['keywords', 'remove', 'cold brew ratio']), 2, 'Refusing without --yes');
    expectCleanError(await b.cli(['keywords', 'remove', 'cold brew ratio', 'not stored', '--yes']), 1, 'error: Keyword "not stored" not stored; nothing was removed');
    const removed = await b.cli(['keywords', 'remove', 'COLD BREW RATIO', '--yes']);
    expect(removed.stdout).toBe('Removed 1 keyword: cold brew ratio [2840/en]\n');
    expect((await b.keywords()).map((k) => k.keyword)).toEqual(['best cold brew coffee maker', 'cold brew coffee']);
  });
});
