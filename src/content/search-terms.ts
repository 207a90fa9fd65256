import { invalidParameter } from '../errors.js';
import { someText } from '../lib/validate.js';
import { documentTerms, pairs, segments } from '../lib/search-text.js';

/** Longest `q` accepted, in characters (after trimming). */
export const QUERY_MAX_LENGTH = 200;

/** Most parts a query may have (words, runs of unspaced scripts, single characters). */
export const QUERY_TERMS_MAX = 8;
/** Most single characters of unspaced scripts a query may have: each matches as the start of every indexed pair, the dearest term. */
export const QUERY_PREFIXES_MAX = 2;

/** The search text as an input field (MCP list_articles `query`); parseSearchQuery checks the rest. */
export const searchQueryInput = someText(QUERY_MAX_LENGTH).optional();

/** A parsed query: every part must match. */
export interface SearchQuery {
  /** Words of spaced scripts. */
  words: string[];
  /** Character pairs of each unspaced run, to match as a phrase (in this order, adjacent). */
  phrases: string[][];
  /** Single characters of unspaced scripts, matched as prefixes of the indexed pairs. */
  prefixes: string[];
}

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
export function searchDocument(article: { title: string; outline: string[]; metaDescription: string }, textTerms: string): { title: string; body: string } {
  return {
    title: documentTerms([article.title, ...article.outline].join('\n')),
    body: [documentTerms(article.metaDescription), textTerms].filter(Boolean).join(' '),
  };
}
