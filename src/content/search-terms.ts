import { invalidParameter } from '../errors.js';
import { someText } from '../lib/validate.js';
import { htmlText } from '../lib/markdown.js';

/** Longest `q` accepted, in characters (after trimming). */
export const QUERY_MAX_LENGTH = 200;

/** Most parts a query may have (words, runs of unspaced scripts, single characters). */
export const QUERY_TERMS_MAX = 8;
/**
 * Most single characters of unspaced scripts (Chinese, Japanese, Korean, Thai...) a query may
 * have: each is matched as the start of every indexed character pair, the dearest kind of term.
 */
export const QUERY_PREFIXES_MAX = 2;

/** The search text as an input field (MCP list_articles `query`); parseSearchQuery checks the rest. */
export const searchQueryInput = someText(QUERY_MAX_LENGTH).optional();

/** Scripts written without spaces between words: indexed as overlapping pairs of characters. */
const UNSPACED = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\u30fc\u3005]/u;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The one normal form of searchable text, for documents and queries alike: compatibility forms
 * folded (full-width Latin, half-width katakana), Latin/Greek/Cyrillic accents removed
 * (`Crème Brûlée` -> `creme brulee`; Japanese voicing marks and Hangul are kept), lower case.
 */
export function normaliseSearchText(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase();
}

/** Runs of letters and digits, each split where it changes between spaced and unspaced scripts. */
function segments(text: string): Array<{ text: string; unspaced: boolean }> {
  const out: Array<{ text: string; unspaced: boolean }> = [];
  for (const [run] of normaliseSearchText(text).matchAll(RUN)) {
    let current = '';
    let unspaced = false;
    for (const ch of run) {
      const u = UNSPACED.test(ch);
      if (current && u !== unspaced) {
        out.push({ text: current, unspaced });
        current = '';
      }
      current += ch;
      unspaced = u;
    }
    if (current) out.push({ text: current, unspaced });
  }
  return out;
}

const pairs = (chars: string[]) => chars.slice(0, -1).map((c, i) => c + chars[i + 1]);

/**
 * The terms a document is indexed under, space separated: words of spaced scripts whole, and
 * for unspaced scripts every pair of neighbouring characters plus the last character of the run
 * alone (so a one-character query, as a prefix, finds every occurrence: each character starts a
 * pair or ends a run).
 */
export function documentTerms(text: string): string {
  const terms: string[] = [];
  for (const s of segments(text)) {
    if (!s.unspaced) terms.push(s.text);
    else {
      const chars = [...s.text];
      terms.push(...pairs(chars), chars[chars.length - 1]);
    }
  }
  return terms.join(' ');
}

/** A parsed query: every part must match. */
export interface SearchQuery {
  /** Words of spaced scripts. */
  words: string[];
  /** Character pairs of each unspaced run, to match as a phrase (in this order, adjacent). */
  phrases: string[][];
  /** Single characters of unspaced scripts, matched as prefixes of the indexed pairs. */
  prefixes: string[];
}

/** `q` checked and parsed; an empty, over-long or letterless query is a 400 naming `q`. */
export function parseSearchQuery(raw: string, name = 'q'): SearchQuery {
  const q = raw.trim();
  if (!q) throw invalidParameter(name, `The ${name} parameter must not be empty: give the words to search for`);
  if ([...q].length > QUERY_MAX_LENGTH) throw invalidParameter(name, `The ${name} parameter must be at most ${QUERY_MAX_LENGTH} characters`);
  const query: SearchQuery = { words: [], phrases: [], prefixes: [] };
  for (const s of segments(q)) {
    if (!s.unspaced) query.words.push(s.text);
    else if ([...s.text].length === 1) query.prefixes.push(s.text);
    else query.phrases.push(pairs([...s.text]));
  }
  const terms = query.words.length + query.phrases.length + query.prefixes.length;
  if (!terms) throw invalidParameter(name, `The ${name} parameter must contain at least one letter or digit`);
  if (terms > QUERY_TERMS_MAX) throw invalidParameter(name, `The ${name} parameter may hold at most ${QUERY_TERMS_MAX} words (it holds ${terms}): search for fewer`);
  if (query.prefixes.length > QUERY_PREFIXES_MAX) {
    throw invalidParameter(name, `The ${name} parameter may hold at most ${QUERY_PREFIXES_MAX} single characters of Chinese, Japanese, Korean or Thai standing alone (it holds ${query.prefixes.length}): write characters that belong together without spaces`);
  }
  return query;
}

/** What a stored article is found by: title and headings (weighed more), and the body text. */
export function searchDocument(article: { title: string; outline: string[]; html: string; metaDescription: string }): { title: string; body: string } {
  return {
    title: documentTerms([article.title, ...article.outline].join('\n')),
    body: documentTerms(`${article.metaDescription}\n${htmlText(article.html)}`),
  };
}
