import { AppError } from '../errors.js';
import type { Checked } from './renderer.js';
import { bodyShape } from '../lib/markdown-shape.js';

/**
 * What svc renders (docs/content-api.md, "Body limits"). Chosen far above real articles (the
 * deepest of 680 real READMEs and posts nests 7 levels, its busiest paragraph holds 261 markup
 * characters, its densest 2 MB would weigh 2.2e8) and low enough that a body at every limit
 * renders in about two seconds, inside `rendering.timeout`.
 */
export const BODY_LIMITS = {
  /** List items and blockquotes nested in one another. */
  depth: 100,
  /** Depth squared, summed over the lines. */
  nesting: 5_000_000,
  /** Emphasis and markup characters (`* _ ~ \` < !`) in one paragraph. */
  paragraphMarkup: 2_000,
  /** Markup characters times paragraph length, summed over the paragraphs. */
  work: 400_000_000,
  /** Footnote references and definitions (`[^`). */
  footnotes: 2_000,
} as const;

/** The most characters a body holds (docs/content-api.md, "Body limits": 2 MB). */
export const BODY_MAX_CHARS = 2_000_000;

/**
 * The largest file read as one post (markdown with front matter, `--body-file`): a body at the
 * limit takes up to three bytes a character in UTF-8, and the front matter comes on top.
 */
export const POST_FILE_MAX_BYTES = 4 * BODY_MAX_CHARS;

const n = (v: number) => v.toLocaleString('en-US');

/**
 * Refuse a body svc cannot render in time, naming it (`label`: the article's slug, title or file),
 * the limit and the fix: `body_too_complex` (422). Linear in the body's length; marked never runs.
 */
export function assertRenderable(label: string, markdown: string): void {
  const shape = bodyShape(markdown);
  const refuse = (what: string, hint: string, limit: string) =>
    new AppError('body_too_complex', 422, `The body of '${label}' ${what}`, { hint, details: { limit } });
  if (shape.depth.value > BODY_LIMITS.depth) {
    throw refuse(
      `nests lists or blockquotes ${n(shape.depth.value)} deep (line ${shape.depth.line}); svc renders at most ${BODY_LIMITS.depth} levels. Flatten the list or quote.`,
      'A list nests one level per two spaces of indentation, and each leading ">" or list marker adds one.',
      'depth',
    );
  }
  if (shape.nesting > BODY_LIMITS.nesting) {
    throw refuse(
      `nests lists or blockquotes deeply on too many lines (${n(shape.nesting)}: each line's depth squared, summed; svc renders at most ${n(BODY_LIMITS.nesting)}). Flatten the deepest lists or quotes.`,
      'A list nests one level per two spaces of indentation, and each leading ">" or list marker adds one.',
      'nesting',
    );
  }
  if (shape.paragraph.value > BODY_LIMITS.paragraphMarkup) {
    throw refuse(
      `has ${n(shape.paragraph.value)} emphasis and markup characters (* _ ~ \` < !) in the paragraph at line ${shape.paragraph.line}; svc renders at most ${n(BODY_LIMITS.paragraphMarkup)} in one paragraph. Split the paragraph with blank lines, or escape the characters with a backslash.`,
      'Put code in a fenced code block, or escape literal characters as \\* \\_ \\~.',
      'paragraphMarkup',
    );
  }
  if (shape.work > BODY_LIMITS.work) {
    throw refuse(
      `is too dense in emphasis and markup characters (* _ ~ \` < !) for its paragraphs' lengths (${n(shape.work)} markup characters x paragraph length; svc renders at most ${n(BODY_LIMITS.work)}). Split long paragraphs with blank lines, or escape the characters with a backslash.`,
      'Put code in a fenced code block, or escape literal characters as \\* \\_ \\~.',
      'work',
    );
  }
  if (shape.footnotes > BODY_LIMITS.footnotes) {
    throw refuse(
      `has ${n(shape.footnotes)} footnote references and definitions ("[^"); svc renders at most ${n(BODY_LIMITS.footnotes)}. Split the article, or write the notes as a plain list.`,
      'Each reference [^1] is looked up among all the definitions [^1]: of the body; a "[^" written as text can be escaped as \\[^.',
      'footnotes',
    );
  }
}

/** `work` of a body within the limits, as a render worker answers; a body beyond them is refused by name, without rendering. */
export function withinLimits<T>(label: string, markdown: string, work: () => T): Checked<T> {
  try {
    assertRenderable(label, markdown);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { refused: { code: err.code, status: err.status, message: err.message, hint: err.hint, details: err.details } };
  }
  return { value: work() };
}
