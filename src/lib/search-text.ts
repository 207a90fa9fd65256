/** The terms svc's search indexes a text under (content/search-terms.ts matches queries against them). */

/** Scripts written without spaces between words: indexed as overlapping pairs of characters. */
const UNSPACED = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\u30fc\u3005]/u;
const RUN = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The one normal form of searchable text, for documents and queries alike: compatibility forms
 * folded (full-width Latin, half-width katakana), Latin/Greek/Cyrillic accents removed
 * (`Crème Brûlée` -> `creme brulee`; Japanese voicing marks and Hangul are kept), lower case.
 */
export function normaliseSearchText(text: string): string {
  // ASCII is its own NFKD and NFC form, with no accent to remove: most text skips both passes.
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').normalize('NFC').toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_RUN = /[a-z0-9]+/g;

/** Runs of letters and digits, each split where it changes between spaced and unspaced scripts. */
export function segments(text: string): Array<{ text: string; unspaced: boolean }> {
  const out: Array<{ text: string; unspaced: boolean }> = [];
  for (const [run] of normaliseSearchText(text).matchAll(RUN)) {
    // A run with no character of an unspaced script is one segment (the common case): no walk.
    if (!UNSPACED.test(run)) {
      out.push({ text: run, unspaced: false });
      continue;
    }
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

export const pairs = (chars: string[]) => chars.slice(0, -1).map((c, i) => c + chars[i + 1]);

/**
 * The terms a document is indexed under, space separated: words of spaced scripts whole, and
 * for unspaced scripts every pair of neighbouring characters plus the last character of the run
 * alone (so a one-character query, as a prefix, finds every occurrence: each character starts a
 * pair or ends a run).
 */
export function documentTerms(text: string): string {
  // ASCII holds no unspaced script, and its letters, digits and marks are [a-z0-9] once lower-cased.
  if (ASCII.test(text)) return (text.toLowerCase().match(ASCII_RUN) ?? []).join(' ');
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
