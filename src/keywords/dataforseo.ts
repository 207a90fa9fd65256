import type { Ctx } from '../context.js';
import { dataForSeoClient } from './dataforseo-client.js';
import { SEARCH_INTENTS, type SearchIntent } from './inputs.js';
import { normalizeKeyword } from './normalize.js';
import type { KeywordProvider, ProviderLookup, ProviderResult } from './provider.js';
import type { CompetitionLevel, KeywordMetrics, MonthlySearches } from './types.js';

// Which DataForSEO endpoint gives what (Live methods: the answer comes in the same request):
// - Google Ads search volume: volume, CPC, paid competition, monthly searches.
// - DataForSEO Labs bulk keyword difficulty: difficulty 0-100.
// - DataForSEO Labs search intent: the main intent.
// - DataForSEO Labs keyword ideas: ideas for seed keywords, each with all of the above.
const PATHS = {
  volume: '/v3/keywords_data/google_ads/search_volume/live',
  difficulty: '/v3/dataforseo_labs/google/bulk_keyword_difficulty/live',
  intent: '/v3/dataforseo_labs/google/search_intent/live',
  ideas: '/v3/dataforseo_labs/google/keyword_ideas/live',
};

type Item = Record<string, any>;

export function createDataForSeoProvider(ctx: Ctx): KeywordProvider {
  const c = ctx.config.keywords.dataforseo;
  return {
    id: 'dataforseo',
    name: 'DataForSEO',
    async lookup(request: ProviderLookup): Promise<ProviderResult> {
      const post = dataForSeoClient({ login: c.login ?? '', password: c.password ?? '', baseUrl: c.baseUrl, timeout: c.timeout, retries: c.retries }, ctx.log);
      const where = { ...locationField(request.location), ...languageField(request.language) };
      const { keywords } = request;
      // The intent classifier takes keywords of 3 characters or more.
      const forIntent = keywords.filter((k) => [...k].length >= 3);
      const [volume, difficulty, intent, ideas] = await Promise.all([
        keywords.length ? post(PATHS.volume, { keywords, ...where }) : [],
        keywords.length ? post(PATHS.difficulty, { keywords, ...where }) : [],
        forIntent.length ? post(PATHS.intent, { keywords: forIntent, ...languageField(request.language) }) : [],
        request.ideasFor.length ? post(PATHS.ideas, { keywords: request.ideasFor, ...where, limit: request.ideasLimit + request.ideasFor.length }) : [],
      ]);
      const byKeyword = <T>(items: Item[], pick: (i: Item) => T) => new Map(items.map((i) => [normalizeKeyword(String(i.keyword ?? '')), pick(i)]));
      const volumes = byKeyword(volume as Item[], (i) => i);
      const difficulties = byKeyword(itemsOf(difficulty), (i) => int(i.keyword_difficulty));
      const intents = byKeyword(itemsOf(intent), (i) => intentOf(i.keyword_intent?.label));
      const metrics = keywords.map((keyword): KeywordMetrics => {
        const n = normalizeKeyword(keyword);
        const v = volumes.get(n);
        return {
          keyword,
          searchVolume: int(v?.search_volume),
          cpc: num(v?.cpc),
          competition: v?.competition_index === null || v?.competition_index === undefined ? null : num(v.competition_index / 100),
          competitionLevel: levelOf(v?.competition),
          difficulty: difficulties.get(n) ?? null,
          intent: intents.get(n) ?? null,
          monthlySearches: monthly(v?.monthly_searches),
        };
      });
      const seeds = new Set(request.ideasFor.map(normalizeKeyword));
      const ideaItems = itemsOf(ideas).filter((i) => typeof i.keyword === 'string' && !seeds.has(normalizeKeyword(i.keyword)));
      return { metrics, ideas: ideaItems.slice(0, request.ideasLimit).map(ideaMetrics) };
    },
  };
}

/** A code (2840) is sent as location_code, anything else as location_name. */
const locationField = (location: string) => (/^\d+$/.test(location) ? { location_code: Number(location) } : { location_name: location });
/** A code (en, pt, zh-TW) is sent as language_code, anything else (English) as language_name. */
const languageField = (language: string) => (/^[a-z]{2,3}(-[a-z0-9]{2,4})?$/i.test(language) ? { language_code: language } : { language_name: language });

/** DataForSEO Labs answers `result: [{ items: [...] }]`; Google Ads answers the items themselves. */
const itemsOf = (result: unknown[]): Item[] => ((result[0] as Item | undefined)?.items ?? []).filter((i: unknown) => i && typeof i === 'object');

function ideaMetrics(i: Item): KeywordMetrics {
  const info = i.keyword_info ?? {};
  return {
    keyword: i.keyword,
    searchVolume: int(info.search_volume),
    cpc: num(info.cpc),
    competition: num(info.competition),
    competitionLevel: levelOf(info.competition_level),
    difficulty: int(i.keyword_properties?.keyword_difficulty),
    intent: intentOf(i.search_intent_info?.main_intent),
    monthlySearches: monthly(info.monthly_searches),
  };
}

/** The last 12 months, oldest first, as `YYYY-MM`. */
function monthly(list: unknown): MonthlySearches[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((m) => m && Number.isInteger(m.year) && Number.isInteger(m.month))
    .map((m) => ({ month: `${m.year}-${String(m.month).padStart(2, '0')}`, searchVolume: int(m.search_volume) }))
    .sort((a, b) => a.month.localeCompare(b.month))
    .slice(-12);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int = (v: unknown): number | null => (num(v) === null ? null : Math.round(v as number));
const levelOf = (v: unknown): CompetitionLevel | null => (v === 'LOW' || v === 'MEDIUM' || v === 'HIGH' ? v : null);
const intentOf = (v: unknown): SearchIntent | null => ((SEARCH_INTENTS as readonly unknown[]).includes(v) ? (v as SearchIntent) : null);
