import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import type { Workspace } from '../workspaces/types.js';
import { type ImportedRow, readKeywordCsv } from './csv-keywords.js';
import type { ImportField } from './csv-formats.js';
import { type KeywordImportOptions, keywordImportOptions, keywordWhere } from './inputs.js';
import { normalizeKeyword } from './normalize.js';
import * as store from './store.js';

export interface ImportResult {
  file: string;
  format: { id: string; name: string };
  location: string;
  language: string;
  created: number;
  updated: number;
  /** Column headers no format knows (not imported). */
  unrecognised: string[];
  /** Countries named by the file (Ahrefs, Semrush) when they are not the location used. */
  countries: string[];
}

const COLUMN: Record<ImportField | 'monthlySearches', string | undefined> = {
  keyword: undefined,
  country: undefined,
  volume: 'search_volume',
  cpc: 'cpc',
  competition: 'competition',
  competitionIndex: 'competition',
  competitionLevel: 'competition_level',
  difficulty: 'difficulty',
  intent: 'intent',
  clicks: 'clicks',
  impressions: 'impressions',
  position: 'position',
  monthlySearches: 'monthly_searches',
};
const MAX_PROBLEMS_SHOWN = 20;

/**
 * Import a keyword export (Keyword Planner, Search Console, Semrush, Ahrefs). The whole file is
 * read and checked first: with any problem nothing is written. Stored keywords take the values the
 * file has; an empty cell keeps what was stored. The file's tool becomes the keyword's source
 * when the file carries search volumes.
 */
export async function importKeywords(ctx: Ctx, ws: Workspace, file: { name: string; bytes: Uint8Array }, options: KeywordImportOptions = {}): Promise<ImportResult> {
  const opts = parseInput(keywordImportOptions, options, 'import options');
  const csv = readKeywordCsv(file.bytes, file.name);
  if (csv.problems.length > 0) {
    const shown = csv.problems.slice(0, MAX_PROBLEMS_SHOWN);
    const more = csv.problems.length - shown.length;
    throw new AppError('invalid_csv', 400, `Nothing imported; fix ${file.name} first:\n  ${shown.join('\n  ')}${more ? `\n  ... and ${more} more` : ''}`, {
      details: { problems: csv.problems },
    });
  }
  if (csv.rows.length === 0) throw new AppError('invalid_csv', 400, `${file.name} holds no keywords (${csv.format.name} format, no rows below the header)`);
  const { location, language } = keywordWhere(ws, opts);
  const now = ctx.clock.now().toISOString();
  const rows = [...merged(csv.rows).values()].map((r) => ({
    workspace_id: ws.id,
    keyword: r.keyword,
    normalized: normalizeKeyword(r.keyword),
    location,
    language,
    ...store.metricColumns({ monthlySearches: [], ...r.metrics }),
    source: csv.format.id,
    fetched_at: now,
    created_at: now,
    updated_at: now,
  }));
  // A column the file does not have never touches stored values; one it has fills them where not empty.
  const keep = [...new Set([...csv.fields].map((f) => COLUMN[f]).filter((c): c is string => Boolean(c)))];
  const merge = ['updated_at', ...(csv.fields.has('volume') ? ['source', 'fetched_at'] : [])];
  const existing = new Set((await store.findKeywordRows(ctx.db, ws.id, rows.map((r) => r.normalized), { location, language })).map((k) => k.normalized));
  await withTransaction(ctx.db, (trx) => store.upsertKeywordRows(trx, rows, { merge, keep }));
  const countries = [...new Set(csv.rows.map((r) => r.country).filter((c): c is string => Boolean(c)))].filter((c) => c !== location.toLowerCase());
  return {
    file: file.name,
    format: csv.format,
    location,
    language,
    created: rows.filter((r) => !existing.has(r.normalized)).length,
    updated: rows.filter((r) => existing.has(r.normalized)).length,
    unrecognised: csv.unrecognised,
    countries,
  };
}

/** One row per keyword: a repeated keyword (Semrush lists one per ranking URL) fills the gaps of the first, best position kept. */
function merged(rows: ImportedRow[]): Map<string, ImportedRow> {
  const byKeyword = new Map<string, ImportedRow>();
  for (const r of rows) {
    const n = normalizeKeyword(r.keyword);
    const first = byKeyword.get(n);
    if (!first) {
      byKeyword.set(n, { ...r, metrics: { ...r.metrics } });
      continue;
    }
    for (const [k, v] of Object.entries(r.metrics) as Array<[keyof typeof r.metrics, never]>) if (first.metrics[k] === undefined) first.metrics[k] = v;
    if (r.metrics.position !== undefined && (first.metrics.position ?? Infinity) > r.metrics.position) first.metrics.position = r.metrics.position;
  }
  return byKeyword;
}
