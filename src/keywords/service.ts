import { listArticleKeywordRows } from '../articles/store.js';
import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import type { Workspace } from '../workspaces/types.js';
import { type KeywordListInput, type KeywordRemoveInput, keywordListInput, keywordRemoveInput } from './inputs.js';
import { normalizeKeyword, uniqueKeywords } from './normalize.js';
import * as store from './store.js';
import { articleTargets, isConflict } from './targets.js';
import type { KeywordTarget, StoredKeyword } from './types.js';

export type KeywordStatus = 'targeted' | 'gap' | 'conflict' | 'untracked';

/** A keyword of the workspace with the articles that target it. Untracked ones are not stored: their metrics are null. */
export interface KeywordView extends Omit<StoredKeyword, 'id' | 'workspaceId' | 'location' | 'language' | 'source' | 'fetchedAt' | 'createdAt' | 'updatedAt'> {
  id: string | null;
  location: string | null;
  language: string | null;
  source: string | null;
  fetchedAt: string | null;
  status: KeywordStatus;
  conflict: boolean;
  targets: KeywordTarget[];
}

export interface KeywordPage {
  total: number;
  limit: number;
  offset: number;
  keywords: KeywordView[];
  /** Over the whole workspace, whatever the filters. */
  counts: { stored: number; targeted: number; gaps: number; conflicts: number; untracked: number };
}

const EMPTY_METRICS = { searchVolume: null, cpc: null, competition: null, competitionLevel: null, difficulty: null, intent: null, monthlySearches: [], clicks: null, impressions: null, position: null };

/**
 * Every keyword of the workspace: the stored ones (researched or imported) and the ones articles
 * target without being stored (untracked), each with the articles that target it. Filtered,
 * sorted and paged in memory: a workspace holds thousands of keywords, not millions.
 */
export async function listKeywords(ctx: Ctx, ws: Workspace, input: KeywordListInput = {}): Promise<KeywordPage> {
  const q = parseInput(keywordListInput, input, 'keyword list options');
  const [stored, articles] = await Promise.all([store.listKeywordRows(ctx.db, ws.id), listArticleKeywordRows(ctx.db, ws.id)]);
  const targets = articleTargets(articles);
  const view = (k: StoredKeyword): KeywordView => {
    const { workspaceId: _w, createdAt: _c, updatedAt: _u, ...rest } = k;
    const t = targets.get(k.normalized)?.targets ?? [];
    return { ...rest, ...statusOf(t, true), targets: t };
  };
  const storedSet = new Set(stored.map((k) => k.normalized));
  const untracked = [...targets].filter(([n]) => !storedSet.has(n)).map(([normalized, t]): KeywordView => ({
    id: null, keyword: t.keyword, normalized, location: null, language: null, ...EMPTY_METRICS, source: null, fetchedAt: null, researchedAt: null, ideasFetchedAt: null,
    ...statusOf(t.targets, false), targets: t.targets,
  }));
  const all = [...stored.map(view), ...untracked];
  const counts = {
    stored: stored.length,
    targeted: all.filter((k) => k.id && k.targets.length > 0).length,
    gaps: all.filter((k) => k.status === 'gap').length,
    conflicts: all.filter((k) => k.conflict).length,
    untracked: untracked.length,
  };

  const needle = q.query ? normalizeKeyword(q.query) : undefined;
  const matches = all.filter(
    (k) =>
      (q.status === undefined || q.status === 'all' || STATUS_FILTER[q.status](k)) &&
      (needle === undefined || k.normalized.includes(needle)) &&
      (q.intent === undefined || k.intent === q.intent) &&
      (q.minVolume === undefined || (k.searchVolume ?? -1) >= q.minVolume) &&
      (q.maxDifficulty === undefined || (k.difficulty !== null && k.difficulty <= q.maxDifficulty)) &&
      (q.location === undefined || k.location === q.location) &&
      (q.language === undefined || k.language === q.language),
  );
  const sort = q.sort ?? 'volume';
  const order = q.order ?? (sort === 'keyword' || sort === 'difficulty' ? 'asc' : 'desc');
  matches.sort(comparator(sort, order));
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  return { total: matches.length, limit, offset, keywords: matches.slice(offset, offset + limit), counts };
}

function statusOf(targets: KeywordTarget[], stored: boolean): { status: KeywordStatus; conflict: boolean } {
  const conflict = isConflict(targets);
  return { conflict, status: !stored ? 'untracked' : conflict ? 'conflict' : targets.length > 0 ? 'targeted' : 'gap' };
}

const STATUS_FILTER: Record<'targeted' | 'gaps' | 'conflicts' | 'untracked', (k: KeywordView) => boolean> = {
  targeted: (k) => k.id !== null && k.targets.length > 0,
  gaps: (k) => k.status === 'gap',
  conflicts: (k) => k.conflict,
  untracked: (k) => k.status === 'untracked',
};

const SORT_VALUE: Record<string, (k: KeywordView) => number | string | null> = {
  volume: (k) => k.searchVolume,
  difficulty: (k) => k.difficulty,
  cpc: (k) => k.cpc,
  keyword: (k) => k.normalized,
  fetched: (k) => k.fetchedAt,
};

/** Missing values last in either order; ties by keyword, then location and language. */
function comparator(sort: string, order: 'asc' | 'desc') {
  const value = SORT_VALUE[sort];
  const dir = order === 'asc' ? 1 : -1;
  return (a: KeywordView, b: KeywordView): number => {
    const va = value(a);
    const vb = value(b);
    if (va !== vb) {
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * dir;
    }
    return a.normalized.localeCompare(b.normalized) || (a.location ?? '').localeCompare(b.location ?? '') || (a.language ?? '').localeCompare(b.language ?? '');
  };
}

/**
 * Remove stored keywords (every location and language, or only the given ones). Refused whole,
 * removing nothing, when one of them is not stored.
 */
export async function removeKeywords(ctx: Ctx, ws: Workspace, input: KeywordRemoveInput): Promise<{ removed: StoredKeyword[] }> {
  const data = parseInput(keywordRemoveInput, input, 'keywords to remove');
  const wanted = uniqueKeywords(data.keywords);
  const found = await store.findKeywordRows(ctx.db, ws.id, wanted.map((w) => w.normalized), { location: data.location, language: data.language });
  const missing = wanted.filter((w) => !found.some((k) => k.normalized === w.normalized));
  if (missing.length > 0) {
    const where = [data.location && `location ${data.location}`, data.language && `language ${data.language}`].filter(Boolean).join(', ');
    const names = missing.map((m) => `"${m.keyword}"`).join(', ');
    throw new AppError('not_found', 404, `${missing.length === 1 ? 'Keyword' : 'Keywords'} ${names} not stored${where ? ` for ${where}` : ''}; nothing was removed`, {
      hint: `List stored keywords with: svc keywords list --workspace ${ws.name}`,
    });
  }
  await store.deleteKeywordRows(ctx.db, found.map((k) => k.id));
  return { removed: found };
}
