import type { KeywordView } from './service.js';
import type { KeywordMetrics, MonthlySearches, StoredKeyword } from './types.js';

// The words agents and operators read (MCP text, CLI output); the JSON is the service's shapes.

const count = (n: number) => n.toLocaleString('en-US');

/** "volume 12,100/month, KD 45, CPC $1.20, competition LOW (0.12), informational" — only what is known. */
export function metricsText(k: KeywordMetrics & Partial<Pick<StoredKeyword, 'clicks' | 'impressions' | 'position'>>): string {
  const parts = [
    k.searchVolume !== null && `volume ${count(k.searchVolume)}/month`,
    k.difficulty !== null && `KD ${k.difficulty}`,
    k.cpc !== null && `CPC $${k.cpc.toFixed(2)}`,
    (k.competitionLevel !== null || k.competition !== null) && `competition ${[k.competitionLevel, k.competition !== null && `(${k.competition.toFixed(2)})`].filter(Boolean).join(' ')}`,
    k.intent !== null && k.intent,
    k.impressions != null && `${count(k.impressions)} impressions`,
    k.clicks != null && `${count(k.clicks)} clicks`,
    k.position != null && `position ${k.position.toFixed(1)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'no data';
}

/** "2025-12 9,900 · 2026-01 8,100 · ..." (oldest first). */
export const trendText = (months: MonthlySearches[]): string => months.map((m) => `${m.month} ${m.searchVolume === null ? '-' : count(m.searchVolume)}`).join(' · ');

/**
 * The trend in one short line for an agent: "2025-12 9,900 -> 2026-11 12,100 (+22%), peak 2026-07
 * 14,800"; the months themselves are in the structured result.
 */
export function trendSummary(months: MonthlySearches[]): string {
  const known = months.filter((m) => m.searchVolume !== null) as Array<MonthlySearches & { searchVolume: number }>;
  if (known.length < 2) return trendText(months);
  const [first, last] = [known[0], known[known.length - 1]];
  const peak = known.reduce((a, b) => (b.searchVolume > a.searchVolume ? b : a));
  const change = first.searchVolume > 0 ? ` (${last.searchVolume >= first.searchVolume ? '+' : ''}${Math.round(((last.searchVolume - first.searchVolume) / first.searchVolume) * 100)}%)` : '';
  return `${first.month} ${count(first.searchVolume)} -> ${last.month} ${count(last.searchVolume)}${change}, peak ${peak.month} ${count(peak.searchVolume)}`;
}

/** Who targets the keyword, or why it matters that nobody does. */
export function targetsText(k: Pick<KeywordView, 'status' | 'conflict' | 'targets'>): string {
  const all = k.targets.map((t) => `${t.slug} (${t.role})`).join(', ');
  if (k.conflict) return `CONFLICT: focus keyword of ${k.targets.filter((t) => t.role === 'focus').map((t) => t.slug).join(', ')}${k.status === 'untracked' ? '; not researched' : ''}`;
  if (k.status === 'gap') return 'gap: no article targets it';
  return `${k.status === 'untracked' ? 'not researched; ' : ''}targeted by ${all}`;
}

/** One line of a keyword list. */
export const keywordLine = (k: KeywordView): string =>
  `- ${k.keyword}${k.location ? ` [${k.location}/${k.language}]` : ''}: ${k.status === 'untracked' ? '' : `${metricsText(k)}; `}${targetsText(k)}`;
