import { AppError } from '../errors.js';
import { type CsvRecord, decodeText, readRecords } from './csv.js';
import { FORMATS, type ImportField, type ImportFormat, countValue, decimalValue, headerKey, intentValue, levelValue } from './csv-formats.js';
import { MAX_KEYWORD_CHARS } from './inputs.js';
import type { KeywordMetrics, MonthlySearches } from './types.js';

export type ImportedMetrics = Partial<Omit<KeywordMetrics, 'keyword'>> & { clicks?: number; impressions?: number; position?: number };

export interface ImportedRow {
  line: number;
  keyword: string;
  metrics: ImportedMetrics;
  country?: string;
}

export interface KeywordCsv {
  format: Pick<ImportFormat, 'id' | 'name'>;
  rows: ImportedRow[];
  /** Problems with line numbers; the import writes nothing while there are any. */
  problems: string[];
  /** Headers no format knows, as written in the file. */
  unrecognised: string[];
  /** The metric fields the file has columns for (an empty cell in them keeps the stored value). */
  fields: Set<ImportField | 'monthlySearches'>;
}

/** Read a keyword export: find its header row and format, then every row, collecting problems. */
export function readKeywordCsv(bytes: Uint8Array, file: string): KeywordCsv {
  const records = readRecords(decodeText(bytes, file), file);
  // Keyword Planner puts two lines (title, date range) above its header.
  const headerAt = records.slice(0, 10).findIndex((r) => FORMATS.some((f) => f.detect(new Set(r.cells.map(headerKey)))));
  if (headerAt < 0) {
    throw new AppError('invalid_csv', 400, `${file} has no keyword column: expected the export of Google Keyword Planner, Google Search Console, Semrush or Ahrefs, or a CSV with a "Keyword" column`, {
      hint: 'docs/keywords.md lists the column headers recognised.',
    });
  }
  const headers = records[headerAt].cells;
  const keys = headers.map(headerKey);
  const format = FORMATS.find((f) => f.detect(new Set(keys)))!;
  const columns = keys.map((k) => (k in format.columns ? format.columns[k] : undefined));
  const months = keys.map((k) => format.month?.(k));
  const unrecognised = headers.filter((h, i) => h.trim() && columns[i] === undefined && !months[i] && !format.ignored?.some((re) => re.test(keys[i])));
  const fields = new Set<ImportField | 'monthlySearches'>(columns.filter((c): c is ImportField => Boolean(c) && c !== 'keyword' && c !== 'country'));
  if (months.some(Boolean)) fields.add('monthlySearches');

  const rows: ImportedRow[] = [];
  const problems: string[] = [];
  for (const record of records.slice(headerAt + 1)) {
    const row = readRow(record, headers, columns, months, problems);
    if (row) rows.push(row);
  }
  return { format: { id: format.id, name: format.name }, rows, problems, unrecognised, fields };
}

function readRow(record: CsvRecord, headers: string[], columns: Array<ImportField | null | undefined>, months: Array<string | undefined>, problems: string[]): ImportedRow | undefined {
  const cell = (field: ImportField) => {
    const i = columns.indexOf(field);
    return i < 0 ? undefined : { value: record.cells[i] ?? '', header: headers[i] };
  };
  const keyword = (cell('keyword')?.value ?? '').normalize('NFC').replace(/\s+/gu, ' ').trim();
  if (!keyword) return undefined; // blank lines and totals rows without a keyword
  const at = `line ${record.line}`;
  if ([...keyword].length > MAX_KEYWORD_CHARS) {
    problems.push(`${at}: the keyword is longer than ${MAX_KEYWORD_CHARS} characters`);
    return undefined;
  }
  const metrics: ImportedMetrics = {};
  const read = <T>(field: ImportField, parse: (v: string) => T | undefined, check?: (v: T) => string | undefined): T | undefined => {
    const c = cell(field);
    if (!c) return undefined;
    try {
      const v = parse(c.value);
      const bad = v === undefined ? undefined : check?.(v);
      if (bad) throw new Error(bad);
      return v;
    } catch (err) {
      problems.push(`${at}: ${c.header} "${c.value}" ${(err as Error).message}`);
      return undefined;
    }
  };
  const range = (lo: number, hi: number) => (v: number) => (v < lo || v > hi ? `is not between ${lo} and ${hi}` : undefined);
  metrics.searchVolume = read('volume', countValue);
  metrics.cpc = read('cpc', decimalValue, range(0, 1e6));
  const index = read('competitionIndex', decimalValue, range(0, 100));
  const competition = read('competition', decimalValue, range(0, 100));
  // Keyword Planner indexes competition 0-100; Semrush's density is already 0-1.
  metrics.competition = index !== undefined ? index / 100 : competition !== undefined ? (competition > 1 ? competition / 100 : competition) : undefined;
  metrics.competitionLevel = cell('competitionLevel') ? levelValue(cell('competitionLevel')!.value) : undefined;
  const difficulty = read('difficulty', decimalValue, range(0, 100));
  metrics.difficulty = difficulty === undefined ? undefined : Math.round(difficulty);
  metrics.intent = cell('intent') ? intentValue(cell('intent')!.value) : undefined;
  metrics.clicks = read('clicks', countValue);
  metrics.impressions = read('impressions', countValue);
  metrics.position = read('position', decimalValue, range(0, 1000));
  const monthly: MonthlySearches[] = [];
  months.forEach((month, i) => {
    if (!month) return;
    try {
      monthly.push({ month, searchVolume: countValue(record.cells[i] ?? '') ?? null });
    } catch (err) {
      problems.push(`${at}: ${headers[i]} "${record.cells[i]}" ${(err as Error).message}`);
    }
  });
  // Low-spend Keyword Planner accounts export the monthly columns empty: no trend then.
  if (monthly.some((m) => m.searchVolume !== null)) metrics.monthlySearches = monthly.sort((a, b) => a.month.localeCompare(b.month)).slice(-12);
  const country = cell('country')?.value.trim().toLowerCase() || undefined;
  return { line: record.line, keyword, metrics, country };
}
