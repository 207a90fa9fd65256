import { Marked, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';

// The only importer of marked and sanitize-html.
const marked = new Marked({ gfm: true, async: false });

/**
 * Where the body's headline is: a `# H1` that opens the body (nothing but blank lines before it),
 * else -1. decisions.md's "the first `# H1` is the title" is read as that headline: an H1 further
 * down is a section the author wrote, so it is neither taken as the title nor removed.
 */
function headlineIndex(tokens: Array<{ type: string }>): number {
  const first = tokens.findIndex((t) => t.type !== 'space');
  return first !== -1 && tokens[first].type === 'heading' && (tokens[first] as Tokens.Heading).depth === 1 ? first : -1;
}

/** The text of the `# H1` that opens the markdown, if it opens with one. */
export function leadingH1(markdown: string): string | null {
  const tokens = marked.lexer(markdown);
  const index = headlineIndex(tokens);
  return index === -1 ? null : (tokens[index] as Tokens.Heading).text.trim();
}

/** The markdown without the `# H1` that opens it (the title is served separately); H1s further down stay. */
export function withoutLeadingH1(markdown: string): string {
  const tokens = marked.lexer(markdown);
  const index = headlineIndex(tokens);
  if (index === -1) return markdown;
  return tokens
    .filter((_, i) => i !== index)
    .map((t) => t.raw)
    .join('')
    .replace(/^\s+/, '');
}

/** The top-level blocks of the markdown, each with its kind (`paragraph`, `html`, `code`, ...) and its source text. */
export function markdownBlocks(markdown: string): Array<{ type: string; raw: string }> {
  return marked.lexer(markdown).map((t) => ({ type: t.type, raw: t.raw }));
}

/** Headings h2-h6 in document order (plain text). */
export function headings(markdown: string): Array<{ depth: number; text: string }> {
  const out: Array<{ depth: number; text: string }> = [];
  marked.walkTokens(marked.lexer(markdown), (t) => {
    if (t.type === 'heading' && (t as Tokens.Heading).depth >= 2) out.push({ depth: (t as Tokens.Heading).depth, text: plain((t as Tokens.Heading).text) });
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
  marked.walkTokens(marked.lexer(markdown), (t) => {
    if (t.type === 'link') links.push((t as Tokens.Link).href);
    else if (t.type === 'image') images.push({ alt: (t as Tokens.Image).text.trim(), src: (t as Tokens.Image).href });
  });
  return { links, images };
}

/** Words of the body, counted on its plain text. */
export function wordCount(markdown: string): number {
  const text = sanitizeHtml(marked.parse(markdown) as string, { allowedTags: [], allowedAttributes: {} });
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

const EMBED_HOSTS = ['www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com'];

/**
 * Markdown -> HTML, sanitised with an allow-list (decisions.md): headings, p, lists, tables,
 * blockquote, a, img, inline code and emphasis, sub and sup, hr, br, and iframes only from YouTube and Vimeo.
 * No scripts, no event-handler attributes, no javascript: URLs.
 */
export function renderHtml(markdown: string): string {
  const raw = marked.parse(markdown) as string;
  return sanitizeHtml(raw, {
    allowedTags: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
      'blockquote', 'a', 'img', 'strong', 'em', 'b', 'i', 'del', 's', 'sub', 'sup', 'code', 'pre', 'hr', 'br', 'figure', 'figcaption', 'iframe'],
    allowedAttributes: {
      a: ['href', 'title', 'rel', 'target'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'frameborder'],
      th: ['align', 'colspan', 'rowspan'],
      td: ['align', 'colspan', 'rowspan'],
      code: ['class'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https'] },
    allowedIframeHostnames: EMBED_HOSTS,
    allowIframeRelativeUrls: false,
    allowedClasses: { code: [/^language-[\w-]+$/] },
  }).trim();
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
  const tokens = marked.lexer(markdown);
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
      const text = plain(h.text);
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
    if (current && t.type !== 'space') {
      const html = marked.parser([t] as never) as string;
      const text = plain(html);
      if (text) current.parts.push(text);
    }
  }
  flush();
  return pairs;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };

/** Tags stripped; entities that sanitize-html escapes turned back into characters (plain text, not HTML). */
const plain = (inline: string): string =>
  sanitizeHtml(marked.parseInline(inline) as string, { allowedTags: [], allowedAttributes: {} })
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (m) => ENTITIES[m])
    .trim();

export const plainText = plain;

/** The text of every code span and code block of the markdown, nested ones included (what must stay as written). */
export function codeTexts(markdown: string): string[] {
  const out: string[] = [];
  marked.walkTokens(marked.lexer(markdown), (t) => {
    if (t.type === 'code' || t.type === 'codespan') out.push((t as Tokens.Code | Tokens.Codespan).text);
  });
  return out;
}
