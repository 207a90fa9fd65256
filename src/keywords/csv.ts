import { CsvError, parse } from 'csv-parse/sync';
import { AppError } from '../errors.js';

// Reading the keyword exports of SEO tools: Google Keyword Planner writes UTF-16 with a BOM and
// tabs; Search Console, Semrush and Ahrefs write UTF-8 (often with a BOM) with commas, Ahrefs
// also UTF-16 with tabs, Semrush's API format semicolons. The parsing is csv-parse's.

/** The text of a file, from its byte order mark (UTF-8, UTF-16 LE/BE) or, without one, its bytes. */
export function decodeText(bytes: Uint8Array, file: string): string {
  const b = bytes;
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b.subarray(2));
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b.subarray(2));
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return utf8(b.subarray(3), file);
  // UTF-16 without a BOM: ASCII text has a NUL in every other byte.
  const sample = b.subarray(0, 200);
  const zeros = (parity: number) => sample.filter((v, i) => i % 2 === parity && v === 0).length;
  if (sample.length >= 4 && zeros(1) > sample.length / 4) return new TextDecoder('utf-16le').decode(b);
  if (sample.length >= 4 && zeros(0) > sample.length / 4) return new TextDecoder('utf-16be').decode(b);
  return utf8(b, file);
}

function utf8(b: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    throw new AppError('invalid_csv', 400, `${file} is neither UTF-8 nor UTF-16 text; export it again as CSV (UTF-8 or UTF-16)`);
  }
}

export interface CsvRecord {
  /** Line of the file the record ends on (1-based). */
  line: number;
  cells: string[];
}

/** Records of a delimited text, the delimiter found from its first lines (tab, semicolon or comma). */
export function readRecords(text: string, file: string): CsvRecord[] {
  const delimiter = delimiterOf(text);
  try {
    const out = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: true, relax_quotes: true, bom: true, info: true }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
    return out.map(({ record, info }) => ({ line: info.lines, cells: record }));
  } catch (err) {
    if (err instanceof CsvError) throw new AppError('invalid_csv', 400, `${file} is not a readable CSV file: ${err.message}`);
    throw err;
  }
}

function delimiterOf(text: string): string {
  const head = text.split(/\r?\n/, 10);
  if (head.some((l) => l.includes('\t'))) return '\t';
  const outsideQuotes = (l: string, c: string) => l.replace(/"[^"]*"/g, '').split(c).length - 1;
  const count = (c: string) => head.reduce((n, l) => n + outsideQuotes(l, c), 0);
  return count(';') > count(',') ? ';' : ',';
}
