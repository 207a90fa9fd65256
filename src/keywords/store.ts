import { type Queryable, writeOn } from '../db/connect.js';
import { newId } from '../lib/ids.js';
import type { KeywordMetrics, StoredKeyword } from './types.js';

type Row = Record<string, any>;

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export const toStoredKeyword = (r: Row): StoredKeyword => ({
  id: r.id,
  workspaceId: r.workspace_id,
  keyword: r.keyword,
  normalized: r.normalized,
  location: r.location,
  language: r.language,
  searchVolume: numOrNull(r.search_volume),
  cpc: numOrNull(r.cpc),
  competition: numOrNull(r.competition),
  competitionLevel: r.competition_level ?? null,
  difficulty: numOrNull(r.difficulty),
  intent: r.intent ?? null,
  monthlySearches: JSON.parse(r.monthly_searches ?? '[]'),
  clicks: numOrNull(r.clicks),
  impressions: numOrNull(r.impressions),
  position: numOrNull(r.position),
  source: r.source,
  fetchedAt: r.fetched_at,
  researchedAt: r.researched_at ?? null,
  ideasFetchedAt: r.ideas_fetched_at ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Metric columns of a row; `undefined` fields are left out. */
export function metricColumns(m: Partial<KeywordMetrics> & { clicks?: number | null; impressions?: number | null; position?: number | null }): Row {
  const row: Row = {
    search_volume: m.searchVolume,
    cpc: m.cpc,
    competition: m.competition,
    competition_level: m.competitionLevel,
    difficulty: m.difficulty,
    intent: m.intent,
    monthly_searches: m.monthlySearches === undefined ? undefined : JSON.stringify(m.monthlySearches),
    clicks: m.clicks,
    impressions: m.impressions,
    position: m.position,
  };
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}

const KEY = ['workspace_id', 'normalized', 'location', 'language'];
// Rows per INSERT (about 20 columns each) and values per IN list: well below SQLite's 32,766 and
// PostgreSQL's 65,535 bound parameters.
const CHUNK = 500;

/** What lists filter and sort on, for every keyword of the workspace (the rest is read for one page only). */
export type KeywordIndexEntry = Pick<StoredKeyword, 'id' | 'normalized' | 'location' | 'language' | 'searchVolume' | 'cpc' | 'difficulty' | 'intent' | 'fetchedAt'>;

export async function listKeywordIndex(db: Queryable, workspaceId: string): Promise<KeywordIndexEntry[]> {
  const rows = await db('keywords').where({ workspace_id: workspaceId }).select('id', 'normalized', 'location', 'language', 'search_volume', 'cpc', 'difficulty', 'intent', 'fetched_at');
  return rows.map((r: Row) => ({
    id: r.id,
    normalized: r.normalized,
    location: r.location,
    language: r.language,
    searchVolume: numOrNull(r.search_volume),
    cpc: numOrNull(r.cpc),
    difficulty: numOrNull(r.difficulty),
    intent: r.intent ?? null,
    fetchedAt: r.fetched_at,
  }));
}

export async function findKeywordRowsById(db: Queryable, ids: string[]): Promise<StoredKeyword[]> {
  const out: StoredKeyword[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await db('keywords').whereIn('id', ids.slice(i, i + CHUNK))).map(toStoredKeyword));
  return out;
}

export async function findKeywordRows(db: Queryable, workspaceId: string, normalized: string[], where?: { location?: string; language?: string }): Promise<StoredKeyword[]> {
  const out: StoredKeyword[] = [];
  for (let i = 0; i < normalized.length; i += CHUNK) {
    const q = db('keywords').where({ workspace_id: workspaceId }).whereIn('normalized', normalized.slice(i, i + CHUNK));
    if (where?.location !== undefined) q.andWhere({ location: where.location });
    if (where?.language !== undefined) q.andWhere({ language: where.language });
    out.push(...(await q).map(toStoredKeyword));
  }
  return out;
}

/**
 * Insert keywords or update the stored ones (same normalised form, location, language).
 * `merge` names the columns an existing row takes from the new one; `keep` the metric columns it
 * takes only where the new value is not null (an import's empty cell never erases data).
 * With `ids`, returns the ids by normalised form (rows of one location and language).
 */
export async function upsertKeywordRows(
  db: Queryable,
  rows: Row[],
  options: { merge: string[]; keep?: string[]; ids?: boolean },
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (rows.length === 0) return ids;
  const merge: Record<string, unknown> = {};
  for (const c of options.merge) merge[c] = db.raw('excluded.??', [c]);
  for (const c of options.keep ?? []) {
    merge[c] = c === 'monthly_searches' ? db.raw(`COALESCE(NULLIF(excluded.??, '[]'), keywords.??)`, [c, c]) : db.raw('COALESCE(excluded.??, keywords.??)', [c, c]);
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK).map((r) => ({ id: newId('kw'), ...r }));
    await writeOn(db)('keywords').insert(chunk).onConflict(KEY).merge(merge);
  }
  if (!options.ids) return ids;
  const { workspace_id: workspaceId, location, language } = rows[0];
  for (const k of await findKeywordRows(db, workspaceId, rows.map((r) => r.normalized), { location, language })) ids.set(k.normalized, k.id);
  return ids;
}

export async function markIdeasFetched(db: Queryable, seedIds: string[], at: string): Promise<void> {
  for (let i = 0; i < seedIds.length; i += CHUNK) await writeOn(db)('keywords').whereIn('id', seedIds.slice(i, i + CHUNK)).update({ ideas_fetched_at: at });
}

export async function linkIdeas(db: Queryable, seedIds: string[], ideaIds: string[]): Promise<void> {
  const links = seedIds.flatMap((seed_id) => ideaIds.filter((id) => id !== seed_id).map((idea_id) => ({ seed_id, idea_id })));
  for (let i = 0; i < links.length; i += CHUNK) await writeOn(db)('keyword_idea_links').insert(links.slice(i, i + CHUNK)).onConflict(['seed_id', 'idea_id']).ignore();
}

/** Stored ideas of these seeds, each once. */
export async function ideaRowsOf(db: Queryable, seedIds: string[]): Promise<StoredKeyword[]> {
  if (seedIds.length === 0) return [];
  const rows = await db('keywords as k')
    .join('keyword_idea_links as l', 'l.idea_id', 'k.id')
    .whereIn('l.seed_id', seedIds)
    .distinct('k.*');
  return rows.map(toStoredKeyword);
}

export async function deleteKeywordRows(db: Queryable, ids: string[]): Promise<number> {
  let n = 0;
  for (let i = 0; i < ids.length; i += CHUNK) n += await writeOn(db)('keywords').whereIn('id', ids.slice(i, i + CHUNK)).delete();
  return n;
}
