import path from 'node:path';
import type { Command } from 'commander';
import { importKeywords } from '../keywords/import.js';
import type { KeywordListInput } from '../keywords/inputs.js';
import { targetsText, trendText } from '../keywords/present.js';
import { researchKeywords } from '../keywords/research.js';
import { type KeywordView, listKeywords, removeKeywords } from '../keywords/service.js';
import type { StoredKeyword } from '../keywords/types.js';
import { readFileBytes } from '../lib/text-file.js';
import { confirm } from './ask.js';
import { YES_OPTION } from './destructive.js';
import { act, intOption, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';

const WHERE = {
  location: ['--location <code|name>', 'location of the keyword data, e.g. 2840 or "United Kingdom" (default: the workspace setting, else 2840)'],
  language: ['--language <code|name>', 'language of the keyword data, e.g. en (default: the workspace setting, else en)'],
} as const;

type ListOptions = { workspace?: string; status?: string; query?: string; intent?: string; minVolume?: string; maxDifficulty?: string; location?: string; language?: string; sort?: string; order?: string; limit?: string; offset?: string };

export function registerKeywords(program: Command, io: Io): void {
  const kw = program.command('keywords').alias('keyword').description('keyword research: look up, import, list and remove the keywords of a workspace');

  kw.command('list')
    .description('stored keywords with metrics and the articles that target them; gaps, conflicts, untracked')
    .option(...WORKSPACE_OPTION)
    .option('--status <status>', 'all | targeted | gaps | conflicts | untracked')
    .option('--query <text>', 'only keywords containing this text')
    .option('--intent <intent>', 'informational | navigational | commercial | transactional')
    .option('--min-volume <n>', 'only keywords searched at least this often a month')
    .option('--max-difficulty <n>', 'only keywords with difficulty at most this (0-100)')
    .option('--location <code|name>', 'only keywords of this location, e.g. 2840')
    .option('--language <code|name>', 'only keywords of this language, e.g. en')
    .option('--sort <field>', 'volume (default) | difficulty | cpc | keyword | fetched')
    .option('--order <order>', 'asc | desc')
    .option('--limit <n>', 'how many (1-500, default 50)')
    .option('--offset <n>', 'skip this many')
    .action(
      act<ListOptions>(io, async ({ app, opts, out, workspace }) => {
        const { workspace: _w, minVolume, maxDifficulty, limit, offset, ...rest } = opts;
        const num = (v: string | undefined, flag: string, min: number, max?: number) => (v === undefined ? undefined : intOption(v, flag, min, max));
        const input = {
          ...rest,
          minVolume: num(minVolume, '--min-volume', 0),
          maxDifficulty: num(maxDifficulty, '--max-difficulty', 0, 100),
          limit: num(limit, '--limit', 1, 500),
          offset: num(offset, '--offset', 0),
        } as KeywordListInput;
        const page = await listKeywords(app, await workspace(), input);
        out.result(page, () => {
          const c = page.counts;
          const summary = `${page.total} shown of ${c.stored} stored (${c.targeted} targeted, ${c.gaps} gaps, ${c.conflicts} conflicts) and ${c.untracked} untracked`;
          return `${table(page.keywords.map(listRow), ['keyword', 'where', 'volume', 'kd', 'cpc', 'intent', 'status', 'articles'])}\n${summary}`;
        });
      }),
    );

  kw.command('lookup')
    .description('research keywords at the data provider: one keyword lookup credit per keyword not looked up in 30 days')
    .argument('<keywords...>', 'keywords, e.g. "cold brew coffee" "iced coffee"')
    .option(...WORKSPACE_OPTION)
    .option(...WHERE.location)
    .option(...WHERE.language)
    .option('--ideas [n]', 'also find keyword ideas (default 20)')
    .action(
      act<{ workspace?: string; location?: string; language?: string; ideas?: string | boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ideasLimit = typeof opts.ideas === 'string' ? intOption(opts.ideas, '--ideas', 1, 100) : undefined;
        const r = await researchKeywords(app, await workspace(), { keywords: args, location: opts.location, language: opts.language, includeIdeas: opts.ideas !== undefined, ideasLimit });
        out.result(r, () => {
          const lines = [
            table(r.keywords.map((k) => ({ ...metricsRow(k), from: k.fromStore ? `store ${k.fetchedAt.slice(0, 10)}` : r.provider.name })), ['keyword', 'volume', 'kd', 'cpc', 'competition', 'intent', 'from']),
            ...r.keywords.filter((k) => k.monthlySearches.length).map((k) => `trend ${k.keyword}: ${trendText(k.monthlySearches)}`),
          ];
          if (r.ideas) lines.push('', `Ideas (${r.ideas.length}):`, table(r.ideas.map(metricsRow), ['keyword', 'volume', 'kd', 'cpc', 'competition', 'intent']));
          lines.push(`${r.spent} keyword lookup credit${r.spent === 1 ? '' : 's'} spent (location ${r.location}, language ${r.language}); Keyword lookups: ${r.usage.used}/${r.usage.allowed}`);
          return lines.join('\n');
        });
      }),
    );

  kw.command('import')
    .description('import a keyword export of Google Keyword Planner, Google Search Console, Semrush or Ahrefs (CSV, UTF-8 or UTF-16)')
    .argument('<file>', 'the exported .csv file')
    .option(...WORKSPACE_OPTION)
    .option(...WHERE.location)
    .option(...WHERE.language)
    .action(
      act<{ workspace?: string; location?: string; language?: string }>(io, async ({ app, args, opts, out, workspace }) => {
        const file = args[0];
        const r = await importKeywords(app, await workspace(), { name: file, bytes: await readFileBytes(path.resolve(io.cwd, file), 'a CSV file') }, { location: opts.location, language: opts.language });
        if (r.unrecognised.length) out.note(`Not imported: column${r.unrecognised.length === 1 ? '' : 's'} ${r.unrecognised.map((c) => `"${c}"`).join(', ')} (not recognised for ${r.format.name})`);
        if (r.countries.length) out.note(`The file names the countr${r.countries.length === 1 ? 'y' : 'ies'} ${r.countries.join(', ')}; the keywords were stored for location ${r.location}. Pass --location to choose another.`);
        out.result(r, () => `Imported ${r.created + r.updated} keyword${r.created + r.updated === 1 ? '' : 's'} from ${r.format.name} (${r.created} new, ${r.updated} updated) for location ${r.location}, language ${r.language}`);
      }),
    );

  kw.command('remove')
    .description('remove stored keywords (every location and language unless given)')
    .argument('<keywords...>')
    .option(...WORKSPACE_OPTION)
    .option('--location <code|name>', 'only the keywords of this location')
    .option('--language <code|name>', 'only the keywords of this language')
    .option(...YES_OPTION)
    .action(
      act<{ workspace?: string; location?: string; language?: string; yes?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const ws = await workspace();
        await confirm(io, opts.yes, `Remove ${args.length} keyword${args.length === 1 ? '' : 's'} from ${ws.name}?`);
        const { removed } = await removeKeywords(app, ws, { keywords: args, location: opts.location, language: opts.language });
        out.result({ removed: removed.map(({ id, keyword, location, language }) => ({ id, keyword, location, language })) }, () =>
          `Removed ${removed.length} keyword${removed.length === 1 ? '' : 's'}: ${removed.map((k) => `${k.keyword} [${k.location}/${k.language}]`).join(', ')}`,
        );
      }),
    );
}

const metricsRow = (k: Pick<StoredKeyword, 'keyword' | 'searchVolume' | 'difficulty' | 'cpc' | 'competitionLevel' | 'intent'>) => ({
  keyword: k.keyword,
  volume: k.searchVolume,
  kd: k.difficulty,
  cpc: k.cpc === null ? null : k.cpc.toFixed(2),
  competition: k.competitionLevel,
  intent: k.intent,
});

const listRow = (k: KeywordView) => ({
  ...metricsRow(k),
  where: k.location ? `${k.location}/${k.language}` : null,
  status: k.status,
  articles: k.targets.length ? targetsText(k).replace(/^targeted by /, '') : null,
});
