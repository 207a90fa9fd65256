import { createRequire } from 'node:module';
import { Marked, type RendererExtension, type Token, type TokenizerExtension, type Tokens } from 'marked';
import markedFootnote from 'marked-footnote';
import type sanitizeHtml from 'sanitize-html';
import { LinkedFragments, SAFE_ID, headingSlug, missingHeadingIds } from './heading-ids.js';
import { documentTerms } from './search-text.js';

// The only importer of marked and sanitize-html.
const marked = new Marked({ gfm: true, async: false });

/**
 * Footnotes as GitHub, kramdown, Hugo and Hexo render them (`[^1]` a superscript link to a
 * numbered list at the end, each note linking back). Every id and fragment it writes starts with
 * FOOTNOTE_ID, which the sanitiser requires (FOOTNOTE_IDS), and which lexWithAnchors keeps from
 * heading ids, so a heading never takes a note's id.
 */
const FOOTNOTE_ID = 'fn-';
const footnotes = markedFootnote({ prefixId: FOOTNOTE_ID, footnoteDivider: true, headingClass: '', sectionClass: 'footnotes' });
// The extension keeps per-document state on the Marked instance: whether this lex has its list
// yet. Its walkTokens clears that (and moves the list to the end), so a lex begins by clearing it
// (a lex that threw leaves it set) and ends by walking its tokens.
// Its numbering counter is reset only when a reference renders, so clearing renders one too: a
// lex that is never rendered (the outline, the links) would otherwise number the next from where
// it stopped.
const footnoteWalk = footnotes.walkTokens!;
const footnoteRef = (footnotes.extensions as Array<TokenizerExtension & RendererExtension>).find((e) => e.name === 'footnoteRef')!;
const clearFootnotes = () => {
  footnoteWalk({ type: 'space', raw: '' });
  footnoteRef.renderer.call(null as never, { type: 'footnoteRef', raw: '', index: 0, id: '', label: '' });
};
// A reference looks its definition up in the list the block lexer puts first; an inline lex
// alone (a heading's plain text) has no list, so `[^1]` stays text there instead of throwing.
const refTokenizer = footnoteRef.tokenizer;
footnoteRef.tokenizer = function (src: string, tokens: Token[]) {
  return (this.lexer.tokens[0] as Token | undefined)?.type === 'footnotes' ? refTokenizer.call(this, src, tokens) : undefined;
};
marked.use(footnotes);

/** marked's lexer with the footnote list at the end of the tokens. */
function lex(markdown: string): Token[] {
  clearFootnotes();
  const tokens = marked.lexer(markdown);
  marked.walkTokens(tokens, footnoteWalk);
  return tokens;
}

/**
 * The `# H1` that opens the body (nothing but blank lines before it), if any, and where its source
 * ends. decisions.md's "the first `# H1` is the title" is read as that headline: an H1 further down
 * is a section the author wrote, so it is neither taken as the title nor removed. Only the first
 * block is read, and only by marked's block lexer (a heading is one line, or a paragraph and its
 * `===` underline), so this costs little whatever the rest of the body holds.
 */
function headline(markdown: string): { text: string; end: number; source: string } | null {
  const source = markdown.replace(/\r\n|\r/g, '\n');
  const start = source.search(/\S/);
  if (start === -1) return null;
  const lineStart = source.lastIndexOf('\n', start) + 1;
  const blank = /\n[ \t]*\n/g;
  blank.lastIndex = start;
  const end = blank.exec(source)?.index ?? source.length;
  const first = blockTokens(source.slice(lineStart, end))[0] as Tokens.Generic | undefined;
  if (first?.type !== 'heading' || (first as Tokens.Heading).depth !== 1) return null;
  const text = (first as Tokens.Heading).text;
  return { text: (headingId(text)?.rest ?? text).trim(), end: lineStart + first.raw.length, source };
}

/** The text of the `# H1` that opens the markdown, if it opens with one. */
export function leadingH1(markdown: string): string | null {
  return headline(markdown)?.text ?? null;
}

/** The markdown without the `# H1` that opens it (the title is served separately); H1s further down stay. */
export function withoutLeadingH1(markdown: string): string {
  const h = headline(markdown);
  return h ? h.source.slice(h.end).replace(/^\s+/, '') : markdown;
}

/** The top-level blocks of the markdown (block lexer only), each with its kind (`paragraph`, `html`, `code`, ...) and its source text. */
export function markdownBlocks(markdown: string): Array<{ type: string; raw: string }> {
  return blockTokens(markdown.replace(/\r\n|\r/g, '\n')).map((t) => ({ type: t.type, raw: t.raw }));
}

/** marked's block lexer alone: the inline lexer, whose cost grows with emphasis, never runs. */
function blockTokens(source: string): Token[] {
  clearFootnotes();
  const tokens = new marked.Lexer(marked.defaults).blockTokens(source, []);
  clearFootnotes();
  return tokens;
}

/** Headings h2-h6 in document order (plain text, without a `{#id}`). */
export function headings(markdown: string): Array<{ depth: number; text: string }> {
  return headingsOf(lexWithAnchors(markdown));
}

/**
 * The id a heading gives itself as kramdown, Hugo and Pandoc write it, `## Title {#custom-id}` at
 * the end of the heading, and the text before it. Found from the end without a regex, so a long
 * heading costs one pass whatever it holds.
 */
function headingId(text: string): { id: string; rest: string } | null {
  const t = text.trimEnd();
  if (!t.endsWith('}')) return null;
  const at = t.lastIndexOf('{#');
  const id = at === -1 ? '' : t.slice(at + 2, -1);
  // `\{#id}` is the text itself, written so that it shows.
  if (!id || /[\s}]/.test(id) || t[at - 1] === '\\') return null;
  return { id, rest: t.slice(0, at).trimEnd() };
}

/** A heading token with the id its HTML carries and its plain text (read once: the outline, the FAQ and the id all use it). */
type AnchoredHeading = Tokens.Heading & { anchor?: string; plainText?: string };

/** The plain text of a heading lexed by lexWithAnchors (or of any other heading token). */
const headingText = (h: Tokens.Heading): string => (h as AnchoredHeading).plainText ?? plain(h.text);

/**
 * The body's tokens with an id on every heading: its own `{#id}` when it gives a safe one (taken
 * off the text either way), else the fragment a link of the body uses for it (the old platform's
 * form, e.g. Hexo's `#Getting-Started`), else the slug of its text; a repeated id gets `-1`, `-2`, ... as on
 * GitHub. Ids that headings give are reserved first, so a slug never takes one a link relies on.
 */
function lexWithAnchors(markdown: string): Token[] {
  const tokens = lex(markdown);
  const hs: AnchoredHeading[] = [];
  const fragments = new LinkedFragments();
  marked.walkTokens(tokens, (t) => {
    if (t.type === 'heading') hs.push(t as AnchoredHeading);
    else if (t.type === 'link') fragments.add((t as Tokens.Link).href);
  });
  const given = hs.map((h) => {
    const found = headingId(h.text);
    if (!found) return null;
    stripHeadingId(h, found.rest);
    return SAFE_ID.test(found.id) && found.id.length <= 200 ? found.id : null;
  });
  const used = new Set<string>();
  const unique = (wanted: string) => {
    const base = notFootnoteId(wanted);
    let id = base;
    for (let n = 1; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    return id;
  };
  hs.forEach((h, i) => {
    if (given[i] && !used.has(given[i])) h.anchor = unique(given[i]);
  });
  hs.forEach((h, i) => {
    const text = (h.plainText = plain(h.text));
    const linked = fragments.for(text);
    h.anchor ??= unique(given[i] ?? (linked && !used.has(linked) ? linked : headingSlug(text)));
  });
  return tokens;
}

/** A heading's id kept out of the footnotes' ids (`fn-1` becomes `section-fn-1`). */
const notFootnoteId = (id: string): string => (id.startsWith(FOOTNOTE_ID) ? `section-${id}` : id);

/** Take the `{#id}` off a heading's text and off the inline token it ends. */
function stripHeadingId(h: Tokens.Heading, rest: string): void {
  h.text = rest;
  const last = h.tokens[h.tokens.length - 1] as Tokens.Text | undefined;
  const inLast = last?.type === 'text' && !last.tokens ? headingId(last.text) : null;
  if (last && inLast && headingId(last.raw)) {
    last.text = inLast.rest;
    last.raw = headingId(last.raw)!.rest;
  } else {
    h.tokens = marked.Lexer.lexInline(h.text);
  }
}

// A heading lexed with its anchor renders with its id; marked escapes nothing in it, which is why
// the anchor holds only SAFE_ID's characters.
marked.use({
  renderer: {
    heading(token) {
      const anchor = (token as AnchoredHeading).anchor;
      const inner = this.parser.parseInline(token.tokens);
      return anchor ? `<h${token.depth} id="${anchor}">${inner}</h${token.depth}>\n` : false;
    },
  },
});

function headingsOf(tokens: Token[]): Array<{ depth: number; text: string }> {
  const out: Array<{ depth: number; text: string }> = [];
  marked.walkTokens(tokens, (t) => {
    if (t.type === 'heading' && (t as Tokens.Heading).depth >= 2) out.push({ depth: (t as Tokens.Heading).depth, text: headingText(t as Tokens.Heading) });
  });
  return out;
}

/**
 * Every link and image of the body as marked reads them: inline, reference-style and autolinks
 * (`<https://...>` and bare URLs), but nothing inside code.
 */
export function linksAndImages(markdown: string): { links: string[]; images: Array<{ alt: string; src: string }> } {
  const links: string[] = [];
  const images: Array<{ alt: string; src: string }> = [];
  marked.walkTokens(lex(markdown), (t) => {
    if (t.type === 'link') links.push((t as Tokens.Link).href);
    else if (t.type === 'image') images.push({ alt: (t as Tokens.Image).text.trim(), src: (t as Tokens.Image).href });
  });
  return { links, images };
}

/** Words of the body, counted on its plain text as renderBody counts them (a heading's `{#id}` and the footnotes' marks are no words). */
export function wordCount(markdown: string): number {
  return wordsOfText(sanitisedText(withoutFootnoteMarks(renderHtml(markdown)).replace(BLOCK_END, ' ')));
}

// What footnotes add to a body's text that is no word of it: a reference's number
// (`<sup><a href="#fn-1">1</a></sup>`, which would stick to the word before it) and each note's way
// back (`↩`, `↩<sup>2</sup>` for a note referenced twice). Matched in marked-footnote's output and
// in the sanitiser's (which moves `id` after `href`).
const FOOTNOTE_MARKS = /<sup><a\b[^>]*\bhref="#fn-(?!ref-)[^"<>]*"[^>]*>[^<]*<\/a><\/sup>| ?<a\b[^>]*\bhref="#fn-ref-[^"<>]*"[^>]*>↩(?:<sup>\d+<\/sup>)?<\/a>/g;

/** HTML without the footnotes' reference numbers and back links, for its text (words, excerpt, search terms, FAQ answers). */
const withoutFootnoteMarks = (html: string): string => (html.includes('"#fn-') ? html.replace(FOOTNOTE_MARKS, '') : html);

/** Words of text as sanitize-html leaves it (entities escaped): runs of non-space holding a letter or a digit, counted without splitting. */
const wordsOfText = (escaped: string): number => escaped.match(WORD)?.length ?? 0;

// From a word's first letter or digit to the space after it: one match per word, none for a run of punctuation.
const WORD = /[\p{L}\p{N}]\S*/gu;

const EMBED_HOSTS = ['www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com'];

/**
 * Markdown -> HTML, sanitised with an allow-list (decisions.md): headings, p, lists, tables,
 * blockquote, a, img, inline code and emphasis, sub and sup, hr, br, and iframes only from YouTube and Vimeo.
 * Headings carry ids (lexWithAnchors).
 * No scripts, no event-handler attributes, no javascript: URLs.
 */
export function renderHtml(markdown: string): string {
  return sanitizeBody(marked.parser(lexWithAnchors(markdown)) as string);
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];

const BODY_TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'blockquote', 'a', 'img', 'strong', 'em', 'b', 'i', 'del', 's', 'sub', 'sup', 'code', 'pre', 'hr', 'br', 'figure', 'figcaption', 'iframe', 'picture', 'source',
  'section'];

// The ids footnotes carry: the prefix, then the label as marked-footnote writes it
// (encodeURIComponent), with `ref-` for a reference and `-2`, `-3`, ... for a repeated one.
const FOOTNOTE_IDS = new RegExp(`^${FOOTNOTE_ID}[A-Za-z0-9%._~-]{1,300}$`);
// The heading marked-footnote opens its list with ("Footnotes", for screen readers only on
// GitHub): left out, as kramdown and Hugo write none and svc keeps no class to hide it.
const FOOTNOTES_LABEL = `${FOOTNOTE_ID}label`;

let loaded: typeof sanitizeHtml | undefined;

/**
 * sanitize-html, loaded at its first use: with the CSS parser it brings it costs a process about
 * a tenth of a second, and most CLI commands that read markdown (lists, edits) sanitise none.
 */
const sanitizer = (): typeof sanitizeHtml => (loaded ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml);

/** An element keeping its `id` only when it is a footnote's. */
const footnoteId = (tagName: string, attribs: sanitizeHtml.Attributes) => {
  const { id, ...rest } = attribs;
  return { tagName, attribs: id !== undefined && FOOTNOTE_IDS.test(id) ? { ...rest, id } : rest };
};

/** The allow-list of a body, with `idFor` deciding a heading's id from the one it carries. */
function bodyOptions(idFor: (id: string | undefined) => string | undefined): sanitizeHtml.IOptions {
  return {
    allowedTags: BODY_TAGS,
    selfClosing: [...sanitizer().defaults.selfClosing, 'source'],
    allowedAttributes: {
      a: ['href', 'title', 'rel', 'target', 'id', 'aria-label'],
      li: ['id'],
      img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height'],
      source: ['srcset', 'sizes', 'type', 'media'],
      iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'frameborder'],
      th: ['align', 'colspan', 'rowspan'],
      td: ['align', 'colspan', 'rowspan'],
      code: ['class'],
      ...Object.fromEntries(HEADINGS.map((h) => [h, ['id']])),
    },
    transformTags: {
      ...Object.fromEntries(HEADINGS.map((h) => [h, (tagName: string, attribs: sanitizeHtml.Attributes) => {
        const { id: _, ...rest } = attribs;
        const given = idFor(attribs.id);
        const id = given === undefined || given === FOOTNOTES_LABEL ? given : notFootnoteId(given);
        return { tagName, attribs: id === undefined ? rest : { ...rest, id } };
      }])),
      a: footnoteId,
      li: footnoteId,
    },
    exclusiveFilter: (frame) => frame.tag === 'h2' && frame.attribs.id === FOOTNOTES_LABEL,
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'], source: ['http', 'https'] },
    allowedIframeHostnames: EMBED_HOSTS,
    allowIframeRelativeUrls: false,
    allowedClasses: { code: [/^language-[\w-]+$/], section: ['footnotes'] },
  };
}

// A heading keeps an id only of SAFE_ID's characters (the renderer writes no other); a hostile
// one from raw HTML in the body is dropped, the heading kept.
let sanitizeOptions: sanitizeHtml.IOptions | undefined;
const SANITIZE = () => (sanitizeOptions ??= bodyOptions((id) => (id !== undefined && SAFE_ID.test(id) ? id : undefined)));

// The sanitiser writes a heading without an id as a bare tag, and escapes `<` in text and
// attribute values, so this finds exactly the headings left without one.
const BARE_HEADING = /<h[1-6]>/;

/**
 * The sanitised body. Headings written as raw HTML get an id like markdown's (missingHeadingIds),
 * so `#anchor` links to them work: a second pass over the sanitiser's own output, only when such
 * a heading is there.
 */
function sanitizeBody(raw: string): string {
  const html = sanitizer()(raw, SANITIZE()).trim();
  if (!BARE_HEADING.test(html)) return html;
  const ids = missingHeadingIds(html);
  let next = 0;
  return sanitizer()(html, bodyOptions((id) => id ?? ids[next++])).trim();
}

/** A question of a FAQ section and its answer as plain text. */
export interface FaqPair {
  question: string;
  answer: string;
}

const FAQ_HEADING = /^(faqs?|frequently asked questions)\b/i;

/**
 * Question/answer pairs of the body's FAQ section (decisions.md): a heading named FAQ or
 * Frequently Asked Questions whose sub-headings end with "?"; each answer is the text up to
 * the next heading.
 */
export function faqPairs(markdown: string): FaqPair[] {
  return faqOf(lexWithAnchors(markdown));
}

function faqOf(tokens: Token[]): FaqPair[] {
  const pairs: FaqPair[] = [];
  let faqDepth = 0;
  let current: { question: string; parts: string[] } | null = null;
  const flush = () => {
    if (current && current.parts.length) pairs.push({ question: current.question, answer: current.parts.join(' ').replace(/\s+/g, ' ').trim() });
    current = null;
  };
  for (const t of tokens) {
    if (t.type === 'heading') {
      const h = t as Tokens.Heading;
      const text = headingText(h);
      if (faqDepth && h.depth <= faqDepth) {
        flush();
        faqDepth = 0;
      }
      if (!faqDepth && FAQ_HEADING.test(text)) {
        faqDepth = h.depth;
        continue;
      }
      if (faqDepth && h.depth > faqDepth) {
        flush();
        if (text.endsWith('?')) current = { question: text, parts: [] };
      }
      continue;
    }
    if (current && t.type !== 'space' && t.type !== 'footnotes') {
      const html = marked.parser([t] as never) as string;
      const text = htmlText(withoutFootnoteMarks(html));
      if (text) current.parts.push(text);
    }
  }
  flush();
  return pairs;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/**
 * The text of HTML: tags stripped, the entities sanitize-html escapes turned back into characters.
 * Linear; no marked. Without a `<` or an `&` there is neither a tag nor an entity, and the
 * sanitiser would only escape each `>`, which `unescaped` turns back: the text is the HTML itself
 * (most headings).
 */
export const htmlText = (html: string): string => (MARKUP.test(html) ? unescaped(sanitizer()(html, { allowedTags: [], allowedAttributes: {} })) : html.trim());

const MARKUP = /[<&]/;

const unescaped = (escaped: string): string => escaped.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (m) => ENTITIES[m]).trim();

/** Inline markdown (a heading, a paragraph) as plain text. */
const plain = (inline: string): string => (LITERAL.test(inline) ? inline.trim() : htmlText(marked.parseInline(inline) as string));

// Inline markdown with none of the characters that start markup, an escape or an entity (most
// headings) is its own text: marked would only escape its quotes and `>`, which htmlText turns
// back, and an autolink keeps its text. Saves a parse and a sanitiser run per heading.
const LITERAL = /^[^\\`*_~[\]<&\x00-\x1f\x7f]*$/;

export const plainText = plain;

/** Everything a publish derives from a body (the content snapshot and the webhook event). */
export interface RenderedBody {
  /** The body without its leading `# H1` (the title). */
  markdown: string;
  html: string;
  outline: string[];
  words: number;
  excerpt: string;
  faq: FaqPair[];
  /** The terms search finds the text by (lib/search-text.ts), made here so that a publish only stores them. */
  searchTerms: string;
}

/** The search terms of HTML's text. */
export const htmlSearchTerms = (html: string): string => documentTerms(htmlText(withoutFootnoteMarks(html)));

const BLOCK_END = /<\/(p|h\d|li|td|th|blockquote)>/g;

const TAG = /<[^>]*>/g;

/**
 * The text of HTML that sanitize-html wrote, as htmlText's sanitiser leaves it (entities still
 * escaped), without parsing it again: in its output every `<` and `>` of text or of an attribute
 * value is escaped, comments are gone and no tag whose content is not text (script, style,
 * textarea, title) is left, so each `<...>` is a tag and the rest is text. Only for sanitize-html's
 * output, never for a body's own HTML.
 */
const sanitisedText = (html: string): string => html.replace(TAG, '');

/**
 * The body rendered in one pass: one lex, whose tokens give the HTML, the outline and the FAQ,
 * and one pass over the HTML's text. Run in the render workers (articles/renderer.ts).
 */
export function renderBody(bodyMarkdown: string): RenderedBody {
  return renderMarkdown(withoutLeadingH1(bodyMarkdown));
}

/** renderBody of markdown whose title is already taken off (a webhook event keeps the body so). */
export function renderMarkdown(markdown: string): RenderedBody {
  const tokens = lexWithAnchors(markdown);
  const raw = marked.parser(tokens) as string;
  const html = sanitizeBody(raw);
  // One pass over the sanitised HTML, a space at each block's end, gives the excerpt, the words
  // and the search terms: its text is that of the unsanitised HTML (sanitize-html keeps the text
  // of the tags it drops).
  const escaped = sanitisedText(withoutFootnoteMarks(html).replace(BLOCK_END, ' '));
  const text = unescaped(escaped).replace(/\s+/g, ' ');
  return {
    markdown,
    html,
    outline: headingsOf(tokens).map((h) => h.text),
    words: wordsOfText(escaped),
    excerpt: text.length > 160 ? `${text.slice(0, 157).replace(/\s+\S*$/, '')}...` : text,
    faq: faqOf(tokens),
    searchTerms: documentTerms(text),
  };
}

/**
 * Whether the markdown may hold code: code needs a backtick, a ~~~ fence or an indent of a tab or
 * four spaces. Separate searches, not one regular expression with alternatives: that took ~65 us
 * on an ordinary body in two-byte form, a share of an archive's import. The four spaces are a
 * pattern, which skips ahead where includes stops at every space of the prose (half the time).
 */
export const mayHoldCode = (markdown: string): boolean => markdown.includes('`') || markdown.includes('~') || markdown.includes('\t') || FOUR_SPACES.test(markdown);

const FOUR_SPACES = / {4}/;

/** The text of every code span and code block of the markdown, nested ones included (what must stay as written). */
export function codeTexts(markdown: string): string[] {
  if (!mayHoldCode(markdown)) return [];
  const out: string[] = [];
  marked.walkTokens(lex(markdown), (t) => {
    if (t.type === 'code' || t.type === 'codespan') out.push((t as Tokens.Code | Tokens.Codespan).text);
  });
  return out;
}
