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
 * sorted and paged in memory over the few columns they need; the full rows are read for the page
 * only (a workspace holds thousands of keywords, not millions).
 */
export async function listKeywords(ctx: Ctx, ws: Workspace, input: KeywordListInput = {}): Promise<KeywordPage> {
  const q = parseInput(keywordListInput, input, 'keyword list options');
  const [stored, articles] = await Promise.all([store.listKeywordIndex(ctx.db, ws.id), listArticleKeywordRows(ctx.db, ws.id)]);
  const targets = articleTargets(articles);
  const storedSet = new Set(stored.map((k) => k.normalized));
  const entries: Entry[] = stored.map((k) => {
    const t = targets.get(k.normalized)?.targets ?? [];
    return { ...k, ...statusOf(t, true), targets: t };
  });
  for (const [normalized, t] of targets) {
    if (storedSet.has(normalized)) continue;
    const untracked: KeywordView = {
      id: null, keyword: t.keyword, normalized, location: null, language: null, ...EMPTY_METRICS, source: null, fetchedAt: null, researchedAt: null, ideasFetchedAt: null,
      ...statusOf(t.targets, false), targets: t.targets,
    };
    entries.push({ ...untracked, untracked });
  }
  const counts = {
    stored: stored.length,
    targeted: entries.filter((k) => k.id && k.targets.length > 0).length,
    gaps: entries.filter((k) => k.status === 'gap').length,
    conflicts: entries.filter((k) => k.conflict).length,
    untracked: entries.length - stored.length,
  };

  const needle = q.query ? normalizeKeyword(q.query) : undefined;
  const matches = entries.filter(
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
  const page = matches.slice(offset, offset + limit);
  const full = new Map((await store.findKeywordRowsById(ctx.db, page.flatMap((e) => (e.id ? [e.id] : [])))).map((k) => [k.id, k]));
  const keywords = page.flatMap((e): KeywordView[] => {
    if (e.untracked) return [e.untracked];
    const k = full.get(e.id!);
    if (!k) return []; // removed meanwhile
    const { workspaceId: _w, createdAt: _c, updatedAt: _u, ...rest } = k;
    return [{ ...rest, status: e.status, conflict: e.conflict, targets: e.targets }];
  });
  return { total: matches.length, limit, offset, keywords, counts };
}

/** A keyword as lists filter and sort it: the index columns, its targets, or the whole untracked view. */
type Entry = Omit<store.KeywordIndexEntry, 'id' | 'location' | 'language' | 'fetchedAt'> & {
  id: string | null;
  location: string | null;
  language: string | null;
  fetchedAt: string | null;
  status: KeywordStatus;
  conflict: boolean;
  targets: KeywordTarget[];
  untracked?: KeywordView;
};

function statusOf(targets: KeywordTarget[], stored: boolean): { status: KeywordStatus; conflict: boolean } {
  const conflict = isConflict(targets);
  return { conflict, status: !stored ? 'untracked' : conflict ? 'conflict' : targets.length > 0 ? 'targeted' : 'gap' };
}

const STATUS_FILTER: Record<'targeted' | 'gaps' | 'conflicts' | 'untracked', (k: Entry) => boolean> = {
  targeted: (k) => k.id !== null && k.targets.length > 0,
  gaps: (k) => k.status === 'gap',
  conflicts: (k) => k.conflict,
  untracked: (k) => k.status === 'untracked',
};

const SORT_VALUE: Record<string, (k: Entry) => number | string | null> = {
  volume: (k) => k.searchVolume,
  difficulty: (k) => k.difficulty,
  cpc: (k) => k.cpc,
  keyword: (k) => k.normalized,
  fetched: (k) => k.fetchedAt,
};

/**
 * Missing values last in either order; ties by keyword, then location and language. Strings
 * compare by code point: localeCompare costs microseconds a call, seconds for 20,000 keywords.
 */
function comparator(sort: string, order: 'asc' | 'desc') {
  const value = SORT_VALUE[sort];
  const dir = order === 'asc' ? 1 : -1;
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (a: Entry, b: Entry): number => {
    const va = value(a);
    const vb = value(b);
    if (va !== vb) {
      if (va === null) return 1;
      if (vb === null) return -1;
      return (va < vb ? -1 : 1) * dir;
    }
    return cmp(a.normalized, b.normalized) || cmp(a.location ?? '', b.location ?? '') || cmp(a.language ?? '', b.language ?? '');
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
