import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type KeywordListInput, type KeywordResearchInput, keywordListFields, keywordResearchFields } from '../../keywords/inputs.js';
import { keywordLine, metricsText, trendSummary } from '../../keywords/present.js';
import { type ResearchResult, researchKeywords } from '../../keywords/research.js';
import { listKeywords } from '../../keywords/service.js';
import { type ToolEnv, gated, text } from '../result.js';
import { describedToolInput } from '../tool-input.js';
import { keywordListOutput, researchOutput } from './output.js';

// Keyword research. Input schemas are the domain's shapes (keywords/inputs.ts), strict,
// refused in the words the services use.
const researchInput = describedToolInput('keyword research', keywordResearchFields);
const listInput = describedToolInput('keyword list options', keywordListFields);

export function registerKeywordTools(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'research_keywords',
    {
      title: 'Research keywords',
      description:
        'Search volume, CPC, paid competition, keyword difficulty (0-100), search intent and the 12-month trend of keywords, from the ' +
        "workspace's keyword data provider (DataForSEO), optionally with related keyword ideas. Each keyword sent to the provider spends one " +
        '`keywords` credit ("Keyword lookups" in get_site_profile); keywords looked up in the last 30 days are answered from the store for free. ' +
        'A call the remaining credits cannot cover is refused whole and spends nothing. Results are stored: list_keywords shows them with the ' +
        'articles that target them. Needs `content`.',
      inputSchema: researchInput,
      outputSchema: researchOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    gated(env, { tool: 'research_keywords', scope: 'content', role: 'editor' }, async (args: KeywordResearchInput) => {
      const r = await researchKeywords(env.app, env.workspace, args);
      return text(researchText(r), {
        provider: r.provider.id,
        location: r.location,
        language: r.language,
        spent: r.spent,
        usage: r.usage,
        keywords: r.keywords.map(({ workspaceId: _w, ...k }) => k),
        ...(r.ideas ? { ideas: r.ideas.map(({ workspaceId: _w, ...k }) => k) } : {}),
      });
    }),
  );

  server.registerTool(
    'list_keywords',
    {
      title: 'List keywords',
      description:
        "The workspace's keywords with their metrics and the articles that target them (as focus or secondary keyword): researched and " +
        'imported keywords, gaps (stored keywords no article targets yet), conflicts (two or more articles with the same focus keyword) and ' +
        'untracked keywords (targeted by articles, not researched yet). Filter, sort and page. Spends nothing. Needs `read`.',
      inputSchema: listInput,
      outputSchema: keywordListOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'list_keywords', scope: 'read', role: 'viewer' }, async (args: KeywordListInput) => {
      const page = await listKeywords(env.app, env.workspace, args);
      const c = page.counts;
      const shown = page.keywords.length;
      const head = [
        `${c.stored} stored keyword${c.stored === 1 ? '' : 's'}: ${c.targeted} targeted by articles, ${c.gaps} gap${c.gaps === 1 ? '' : 's'}, ${c.conflicts} conflict${c.conflicts === 1 ? '' : 's'}; ${c.untracked} untracked (targeted, not researched).`,
        shown === 0 ? `No keywords match (total ${page.total}).` : `Showing ${page.offset + 1}-${page.offset + shown} of ${page.total}:`,
      ];
      const more = page.offset + shown < page.total ? [`More: call again with offset ${page.offset + shown}.`] : [];
      // Lean: the structured part says what the text says (the months of each trend are research_keywords' to give).
      const keywords = page.keywords.map(({ monthlySearches: _m, ...k }) => k);
      const nextOffset = page.offset + shown < page.total ? page.offset + shown : null;
      return text([...head, ...page.keywords.map(keywordLine), ...more].join('\n'), { ...page, keywords, nextOffset });
    }),
  );
}

function researchText(r: ResearchResult): string {
  const fromStore = r.keywords.filter((k) => k.fromStore).length;
  const head = [
    `Keyword data from ${r.provider.name} for location ${r.location}, language ${r.language}.`,
    `${r.spent} looked up now (${r.spent} keyword lookup credit${r.spent === 1 ? '' : 's'} spent), ${fromStore} from the store (free). Keyword lookups this month: ${r.usage.used}/${r.usage.allowed}.`,
    '',
  ];
  const lines = r.keywords.flatMap((k) => [
    `- ${k.keyword}: ${metricsText(k)}${k.fromStore ? ` (stored ${k.fetchedAt.slice(0, 10)})` : ''}`,
    ...(k.monthlySearches.length ? [`  trend: ${trendSummary(k.monthlySearches)}`] : []),
  ]);
  const ideas = r.ideas === null ? [] : ['', r.ideas.length ? `Ideas (${r.ideas.length}, most searched first):` : 'No ideas found.', ...r.ideas.map((i) => `- ${i.keyword}: ${metricsText(i)}`)];
  return [...head, ...lines, ...ideas].join('\n');
}
