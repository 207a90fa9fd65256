import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError, isAppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import { getUsage } from '../workspaces/usage.js';
import type { Workspace } from '../workspaces/types.js';
import { completeLookup, failLookup, reserveLookup } from './credits.js';
import { type KeywordResearchInput, keywordResearchInput, keywordWhere } from './inputs.js';
import { normalizeKeyword, uniqueKeywords } from './normalize.js';
import { type KeywordProvider, keywordProvider } from './provider.js';
import * as store from './store.js';
import type { KeywordMetrics, StoredKeyword } from './types.js';

/** Stored provider data younger than this answers a lookup from the store, free (decisions.md). */
export const FRESH_FOR_MS = 30 * 86_400_000;
const DEFAULT_IDEAS = 20;

export interface ResearchedKeyword extends StoredKeyword {
  /** True when answered from the store (no provider call, no credit). */
  fromStore: boolean;
}

export interface ResearchResult {
  provider: { id: string; name: string };
  location: string;
  language: string;
  keywords: ResearchedKeyword[];
  /** Ideas for the keywords, most searched first; null when not asked for. */
  ideas: StoredKeyword[] | null;
  /** Credits spent: the keywords sent to the provider. */
  spent: number;
  sent: string[];
  usage: { used: number; allowed: number };
}

/**
 * Research keywords: metrics for each (and ideas when asked), from the store when the provider
 * data is younger than 30 days, else from the provider, spending one `keywords` credit per
 * keyword sent. Refused whole, spending nothing, when the allowance is short or the provider fails.
 */
export async function researchKeywords(ctx: Ctx, ws: Workspace, input: KeywordResearchInput): Promise<ResearchResult> {
  const data = parseInput(keywordResearchInput, input, 'keyword research');
  const provider = keywordProvider(ctx);
  const { location, language } = keywordWhere(ws, data);
  const wanted = uniqueKeywords(data.keywords);
  const ideasLimit = data.ideasLimit ?? DEFAULT_IDEAS;
  const freshSince = new Date(ctx.clock.now().getTime() - FRESH_FOR_MS).toISOString();
  const fresh = (at: string | null | undefined) => Boolean(at && at > freshSince);

  const find = async () => new Map((await store.findKeywordRows(ctx.db, ws.id, wanted.map((w) => w.normalized), { location, language })).map((k) => [k.normalized, k]));
  const before = await find();
  const needIdeas = data.includeIdeas ? wanted.filter((w) => !fresh(before.get(w.normalized)?.ideasFetchedAt)) : [];
  // A keyword sent for ideas has its metrics refreshed in the same lookup: it is paid for anyway.
  const send = wanted.filter((w) => !fresh(before.get(w.normalized)?.researchedAt) || needIdeas.includes(w));

  if (send.length > 0) await fetchAndStore(ctx, ws, provider, { send: send.map((w) => w.keyword), ideasFor: needIdeas.map((w) => w.keyword), ideasLimit, location, language });

  const after = await find();
  const sentSet = new Set(send.map((w) => w.normalized));
  const keywords = wanted.map((w) => ({ ...after.get(w.normalized)!, fromStore: !sentSet.has(w.normalized) }));
  let ideas: StoredKeyword[] | null = null;
  if (data.includeIdeas) {
    const asked = new Set(wanted.map((w) => w.normalized));
    ideas = (await store.ideaRowsOf(ctx.db, keywords.map((k) => k.id)))
      .filter((i) => !asked.has(i.normalized))
      .sort((a, b) => (b.searchVolume ?? -1) - (a.searchVolume ?? -1) || a.normalized.localeCompare(b.normalized))
      .slice(0, ideasLimit);
  }
  const usage = (await getUsage(ctx, ws)).find((u) => u.kind === 'keywords')!;
  return { provider: { id: provider.id, name: provider.name }, location, language, keywords, ideas, spent: send.length, sent: send.map((w) => w.keyword), usage: { used: usage.used, allowed: usage.allowed } };
}

async function fetchAndStore(
  ctx: Ctx,
  ws: Workspace,
  provider: KeywordProvider,
  req: { send: string[]; ideasFor: string[]; ideasLimit: number; location: string; language: string },
): Promise<void> {
  const reservation = await reserveLookup(ctx, ws, provider.id, req.send);
  try {
    const result = await provider.lookup({ keywords: req.send, ideasFor: req.ideasFor, ideasLimit: req.ideasLimit, location: req.location, language: req.language });
    const now = ctx.clock.now().toISOString();
    const row = (m: KeywordMetrics) => ({
      workspace_id: ws.id,
      keyword: m.keyword,
      normalized: normalizeKeyword(m.keyword),
      location: req.location,
      language: req.language,
      ...store.metricColumns(m),
      source: provider.id,
      fetched_at: now,
      researched_at: now,
      created_at: now,
      updated_at: now,
    });
    const merge = ['search_volume', 'cpc', 'competition', 'competition_level', 'difficulty', 'intent', 'monthly_searches', 'source', 'fetched_at', 'researched_at', 'updated_at'];
    const sent = new Set(req.send.map(normalizeKeyword));
    const ideaRows = uniqueKeywords(result.ideas.map((i) => i.keyword))
      .filter((u) => !sent.has(u.normalized))
      .map((u) => row(result.ideas.find((i) => normalizeKeyword(i.keyword) === u.normalized)!));
    await withTransaction(ctx.db, async (trx) => {
      const ids = await store.upsertKeywordRows(trx, result.metrics.map(row), { merge, ids: true });
      if (req.ideasFor.length > 0) {
        const seedIds = req.ideasFor.map((k) => ids.get(normalizeKeyword(k))!).filter(Boolean);
        const ideaIds = await store.upsertKeywordRows(trx, ideaRows, { merge, ids: true });
        await store.linkIdeas(trx, seedIds, [...ideaIds.values()]);
        await store.markIdeasFetched(trx, seedIds, now);
      }
      await completeLookup(ctx, trx, reservation);
    });
  } catch (err) {
    await failLookup(ctx, ws.id, reservation, (err as Error).message);
    if (isAppError(err) && err.status === 424) {
      ctx.log.info({ workspace: ws.id, code: err.code, provider: provider.id }, err.message);
      throw new AppError(err.code, err.status, `${err.message} No keyword lookup credit was spent.`, { details: err.details });
    }
    throw err;
  }
}
