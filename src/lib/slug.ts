/**
 * URL slugs of any script (decisions.md "Slugs"): letters, combining marks and digits
 * joined by single dashes, lower case where the script has case, stored and compared in NFC.
 * Dots and underscores join them too (imported sites served `my_post` and
 * `converter-3.0-released`; both are unreserved in URLs, so the URL keeps them as they are).
 * A slug in a URL is percent-encoded by whoever builds the URL (see articleUrl).
 */
import { charLength } from './validate.js';

/** The most characters (code points, as PostgreSQL's varchar counts them) a slug may have. */
export const SLUG_MAX = 200;

/** Slugs derived from a title are kept shorter, leaving room for a `-2` suffix. */
export const DERIVED_SLUG_MAX = 120;

// One or more "characters" (a letter or digit with its combining marks) per word, words joined by a single - . or _.
const WORDS = '(?:[\\p{L}\\p{N}]\\p{M}*)+(?:[-._](?:[\\p{L}\\p{N}]\\p{M}*)+)*';
const SLUG = new RegExp(`^${WORDS}$`, 'u');

/**
 * The slugs an input may spell before it is normalised (trimmed, lower-cased, NFC): what the MCP
 * tools advertise as the slug's JSON Schema pattern. It needs Unicode property escapes (ECMAScript
 * with the u flag, as Ajv compiles patterns); a client whose regex engine lacks them cannot use it.
 */
export const SLUG_INPUT_PATTERN = new RegExp(`^\\s*${WORDS}\\s*$`, 'u');

// Already in stored form (nothing to trim, no upper case, ASCII is NFC): every request for a plain slug.
const PLAIN = /^[a-z0-9._-]*$/;

/** The form a slug is stored and compared in: trimmed, lower case, NFC. */
export const normaliseSlug = (text: string): string => (text.length <= SLUG_MAX && PLAIN.test(text) ? text : text.trim().toLowerCase().normalize('NFC'));

/**
 * Whether `slug` is already a slug in its stored form (normalised, and of slug characters only).
 * Text longer than any slug (SLUG_MAX characters are at most twice as many UTF-16 units) is not
 * one, and the pattern never runs over it.
 */
export const isValidSlug = (slug: string): boolean => slug.length <= 2 * SLUG_MAX && SLUG.test(slug) && normaliseSlug(slug) === slug;

/**
 * The spellings a stored slug may have for one normalised request: the NFC form, and the NFD
 * form that slugs derived before NFC was the rule were stored in (Hangul, for one). Those are
 * never renamed (they are live URLs), so lookups try both.
 */
export function slugForms(slug: string): string[] {
  const nfc = normaliseSlug(slug);
  const nfd = nfc.normalize('NFD');
  return nfd === nfc ? [nfc] : [nfc, nfd];
}

// Latin letters without a decomposition that still have a plain ASCII spelling.
const LATIN_LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h', ŋ: 'n' };

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * A slug derived from a title, for every script. Compatibility forms are folded (NFKC: full-width
 * letters, ligatures), Latin letters lose their accents (café -> cafe), and every other letter
 * keeps its marks (が, 한, क्षि stay whole): only what is not a letter, mark or digit becomes a dash.
 * Cut at a whole character, never inside one. Empty when the title has no letter or digit.
 */
export function slugify(title: string, max = DERIVED_SLUG_MAX): string {
  if (ASCII.test(title)) return asciiSlug(title, max);
  const words = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{Script=Latin}\p{M}*/gu, (ch) => {
      const bare = ch.normalize('NFD').replace(/\p{M}/gu, '');
      return LATIN_LETTERS[bare] ?? bare;
    })
    .replace(/['’\p{Cf}]/gu, '') // apostrophes (don't -> dont), joiners and other invisible format characters
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/(^|-)\p{M}+/gu, '$1') // a mark with no letter to sit on
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .normalize('NFC');
  return truncate(words, max).replace(/-+$/, '');
}

// ASCII is its own NFKC and NFC, has no marks, no format characters and no letter LATIN_LETTERS
// spells otherwise, and each of its characters is a whole one: slugify's steps come down to these
// (an import slugs every tag of every post).
const ASCII = /^[\x00-\x7f]*$/;
const asciiSlug = (title: string, max: number): string =>
  title.toLowerCase().replace(/'/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, max).replace(/-+$/, '');

/** The longest run of whole characters (graphemes) of `text` within `max` code points. */
function truncate(text: string, max: number): string {
  if (charLength(text) <= max) return text;
  let out = '';
  let n = 0;
  for (const { segment } of graphemes.segment(text)) {
    const len = charLength(segment);
    if (n + len > max) break;
    out += segment;
    n += len;
  }
  return out;
}
