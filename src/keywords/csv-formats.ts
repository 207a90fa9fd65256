import { SEARCH_INTENTS, type SearchIntent } from './inputs.js';
import type { CompetitionLevel } from './types.js';

// The export formats `svc keywords import` recognises, by their column headers (compared in
// lower case, NFC, spaces collapsed). Each column is read into a field, or known and not used
// (null); columns no format knows are reported. Sources: the tools' own exports as users share
// them (docs/keywords.md lists the headers).

export type ImportField = 'keyword' | 'volume' | 'cpc' | 'competition' | 'competitionIndex' | 'competitionLevel' | 'difficulty' | 'intent' | 'clicks' | 'impressions' | 'position' | 'country';

export interface ImportFormat {
  /** Stored as the keywords' source. */
  id: 'keyword-planner' | 'search-console' | 'semrush' | 'ahrefs' | 'csv';
  name: string;
  detect(headers: Set<string>): boolean;
  columns: Record<string, ImportField | null>;
  /** Header patterns known and not used (Ahrefs' `SV trend (09-2024 - 08-2026)`). */
  ignored?: RegExp[];
  /** Monthly search columns (`Searches: May 2025`) -> `2025-05`. */
  month?: (header: string) => string | undefined;
}

const has = (h: Set<string>, ...names: string[]) => names.some((n) => h.has(n));
const unused = (...names: string[]) => Object.fromEntries(names.map((n) => [n, null]));
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export const FORMATS: ImportFormat[] = [
  {
    id: 'keyword-planner',
    name: 'Google Keyword Planner',
    detect: (h) => h.has('avg. monthly searches'),
    columns: {
      keyword: 'keyword',
      'avg. monthly searches': 'volume',
      competition: 'competitionLevel',
      'competition (indexed value)': 'competitionIndex',
      ...unused('currency', 'segmentation', 'three month change', 'yoy change', 'top of page bid (low range)', 'top of page bid (high range)', 'ad impression share', 'organic impression share', 'organic average position', 'in account?', 'in plan?'),
    },
    month: (header) => {
      const m = /^searches: ([a-z]{3})[a-z]* (\d{4})$/.exec(header);
      const i = m ? MONTHS.indexOf(m[1]) : -1;
      return m && i >= 0 ? `${m[2]}-${String(i + 1).padStart(2, '0')}` : undefined;
    },
  },
  {
    id: 'search-console',
    name: 'Google Search Console',
    detect: (h) => h.has('top queries') || (has(h, 'query', 'queries') && h.has('impressions')),
    columns: { 'top queries': 'keyword', query: 'keyword', queries: 'keyword', clicks: 'clicks', impressions: 'impressions', position: 'position', ...unused('ctr') },
  },
  {
    id: 'semrush',
    name: 'Semrush',
    detect: (h) => has(h, 'keyword difficulty', 'keyword difficulty index', 'competitive density', 'keyword intents', 'search volume'),
    columns: {
      keyword: 'keyword',
      volume: 'volume',
      'search volume': 'volume',
      'keyword difficulty': 'difficulty',
      'keyword difficulty index': 'difficulty',
      'cpc (usd)': 'cpc',
      cpc: 'cpc',
      'competitive density': 'competition',
      intent: 'intent',
      'keyword intents': 'intent',
      position: 'position',
      database: 'country',
      ...unused('competition', 'trend', 'trends', 'serp features', 'serp features by keyword', 'number of results', 'previous position', 'url', 'traffic', 'traffic (%)', 'traffic cost', 'timestamp', 'position type', 'seed keyword', 'page', 'topic', 'page type', 'tags', 'click potential', 'content references', 'competitors'),
    },
  },
  {
    id: 'ahrefs',
    name: 'Ahrefs',
    detect: (h) => has(h, 'parent keyword', 'parent topic', 'cps', 'global volume', 'traffic potential', 'kd', 'difficulty'),
    columns: {
      keyword: 'keyword',
      volume: 'volume',
      difficulty: 'difficulty',
      kd: 'difficulty',
      cpc: 'cpc',
      intents: 'intent',
      'current position': 'position',
      position: 'position',
      country: 'country',
      ...unused('#', 'cps', 'clicks', 'return rate', 'parent keyword', 'parent topic', 'last update', 'serp features', 'global volume', 'traffic potential', 'global traffic potential', 'first seen', 'languages', 'category', 'location', 'current url', 'previous url', 'previous position', 'position change', 'organic traffic', 'current organic traffic', 'previous organic traffic', 'organic traffic change', 'branded', 'local', 'navigational', 'informational', 'commercial', 'transactional', 'current position kind', 'previous position kind'),
    },
    ignored: [/^sv trend\b/, /^sv forecasting trend\b/],
  },
  {
    id: 'csv',
    name: 'a keyword list',
    detect: (h) => has(h, 'keyword', 'keywords'),
    columns: { keyword: 'keyword', keywords: 'keyword', volume: 'volume', 'search volume': 'volume', cpc: 'cpc', difficulty: 'difficulty', kd: 'difficulty', intent: 'intent', competition: 'competition' },
  },
];

/** How headers are compared: NFC, lower case, one space. */
export const headerKey = (h: string): string => h.normalize('NFC').replace(/^\uFEFF/, '').replace(/\s+/gu, ' ').trim().toLowerCase();

// Cell values. Each returns undefined for an empty cell and throws a short reason for a bad one.

const EMPTY = new Set(['', '-', '--', 'n/a', 'na', 'null']);
const SUFFIX: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9 };

/** 12100, "12,100", "12 100", "1.2K", a range "1K – 10K" (its lower bound). */
export function countValue(cell: string): number | undefined {
  const v = cell.trim().toLowerCase();
  if (EMPTY.has(v)) return undefined;
  const low = v.split(/\s*[–—-]\s*/u)[0];
  const m = /^([\d.,\s'\u00a0\u202f]+?)\s*([kmb])?$/.exec(low);
  if (!m) throw new Error('is not a number');
  const digits = m[2] ? m[1].replace(',', '.').replace(/[\s'\u00a0\u202f]/g, '') : m[1].replace(/[.,\s'\u00a0\u202f]/g, '');
  const n = Number(digits) * (m[2] ? SUFFIX[m[2]] : 1);
  if (!Number.isFinite(n)) throw new Error('is not a number');
  return Math.round(n);
}

/** 1.23, "$1.23", "1,23" (a decimal comma), "1,234.5", "45.6%". */
export function decimalValue(cell: string): number | undefined {
  const raw = cell.trim();
  if (EMPTY.has(raw.toLowerCase())) return undefined;
  const v = raw.replace(/^(?:[$€£¥]|[A-Z]{3})\s*/u, '').replace(/\s*(?:%|[$€£¥]|[A-Z]{3})$/u, '');
  const normal = v.includes('.') ? v.replace(/,/g, '') : v.replace(',', '.');
  if (!/^-?\d*\.?\d+$/.test(normal)) throw new Error('is not a number');
  return Number(normal);
}

const LEVELS: Record<string, CompetitionLevel> = {
  low: 'LOW', faible: 'LOW', niedrig: 'LOW', bajo: 'LOW', baja: 'LOW', baixa: 'LOW', basso: 'LOW', laag: 'LOW',
  medium: 'MEDIUM', moyen: 'MEDIUM', moyenne: 'MEDIUM', mittel: 'MEDIUM', medio: 'MEDIUM', media: 'MEDIUM', média: 'MEDIUM', gemiddeld: 'MEDIUM',
  high: 'HIGH', élevé: 'HIGH', élevée: 'HIGH', hoch: 'HIGH', alto: 'HIGH', alta: 'HIGH', hoog: 'HIGH',
};
export const levelValue = (cell: string): CompetitionLevel | undefined => LEVELS[cell.trim().toLowerCase()];

// Semrush's API exports give intents as codes; its UI badges as letters.
const INTENT_CODES: Record<string, SearchIntent> = { '0': 'commercial', '1': 'informational', '2': 'navigational', '3': 'transactional', c: 'commercial', i: 'informational', n: 'navigational', t: 'transactional' };

/** The first search intent named in the cell ("Informational, Commercial" -> informational). */
export function intentValue(cell: string): SearchIntent | undefined {
  for (const part of cell.toLowerCase().split(/[,;|/]+/)) {
    const p = part.trim();
    if ((SEARCH_INTENTS as readonly string[]).includes(p)) return p as SearchIntent;
    if (INTENT_CODES[p]) return INTENT_CODES[p];
  }
  return undefined;
}
