import TurndownService from 'turndown';
import { invalidInput } from '../errors.js';
import { renderHtml } from '../lib/markdown.js';

// The only importer of turndown: HTML bodies of Ghost and WordPress posts become markdown here.
// What it lets through is still sanitised when the article is rendered at publish.

const markdown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
  hr: '---',
  // HTML kept as HTML (tables a pipe table cannot hold, video iframes) goes through the same
  // allow-list as a published body, so the stored markdown holds no script or handler either.
  keepReplacement: (_content, node) => `\n\n${renderHtml(node.outerHTML)}\n\n`,
});
markdown.remove(['script', 'style', 'noscript', 'template']);

// Text stays text (an imported post must not smuggle markup in): `&lt;script&gt;` is the text "<script>", which markdown would read
// as a tag, so `<` and an `&` that starts an entity are written as entities. A URL in the text
// (WordPress links bare ones when it renders; link texts are often their URL) escapes only its
// brackets: a backslash before its `_` would become part of the link (`%5C_`).
const escapeText = markdown.escape.bind(markdown);
const BARE_URL = /((?:https?:\/\/|www\.)[^\s<>"]+)/i;
markdown.escape = (text: string) =>
  text
    .split(BARE_URL)
    .map((part, i) => (i % 2 === 1 ? part.replace(/[[\]]/g, '\\$&') : escapeText(part).replace(/&(?=#?\w+;)/g, '&amp;').replace(/</g, '&lt;')))
    .join('');

// Links and images only where a published page may point: http(s), mailto, or the site's own paths.
const SAFE_URL = /^(?:https?:|mailto:|\/|#|\?|\.|[^:/?#]*(?:[/?#]|$))/i;
const unsafe = (url: string | null) => url !== null && !SAFE_URL.test(url.replace(/[\u0000-\u0020\u007f]/g, ''));
markdown.addRule('unsafeLink', { filter: (node) => node.nodeName === 'A' && unsafe(node.getAttribute('href')), replacement: (content) => content });
markdown.addRule('unsafeImage', { filter: (node) => node.nodeName === 'IMG' && unsafe(node.getAttribute('src')), replacement: () => '' });
// (querySelector in turndown's DOM can match elements outside the node: descendants are walked.)
const descendants = (node: Node): HTMLElement[] => Array.from((node as HTMLElement).getElementsByTagName('*')) as HTMLElement[];
const hasClass = (el: Element, name: string) => (el.getAttribute('class') ?? '').split(/\s+/).includes(name);
const byClass = (node: Node, name: string) => descendants(node).find((el) => hasClass(el, name));
const bookmarkTitle = (node: Node) => byClass(node, 'kg-bookmark-title')?.textContent?.trim() ?? '';
// (Turndown tries the rule added last first: the bookmark card's rule follows this one.)
// Any other link around blocks (paragraphs, divs): a markdown link cannot span them, so the
// blocks stay as they are and the link follows them on its own line, not "[" and "](url)" as text.
const BLOCKS = new Set(['P', 'DIV', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'FIGURE', 'BLOCKQUOTE']);
markdown.addRule('blockLink', {
  filter: (node) => node.nodeName === 'A' && !unsafe(node.getAttribute('href')) && descendants(node).some((el) => BLOCKS.has(el.nodeName)),
  replacement: (content, node) => {
    const href = ((node as HTMLElement).getAttribute('href') ?? '').replace(/[<>()]/g, '\\$&');
    return `\n\n${content.trim()}\n\n[${markdown.escape(href)}](${href})\n\n`;
  },
});
// Ghost's bookmark card (a link wrapping the linked page's title, description, icon and
// thumbnail in divs) reads as its title linked, then its description, as the mobiledoc card does.
markdown.addRule('ghostBookmark', {
  filter: (node) => node.nodeName === 'A' && hasClass(node, 'kg-bookmark-container') && !unsafe(node.getAttribute('href')) && bookmarkTitle(node) !== '',
  replacement: (_content, node) => {
    const a = node as HTMLElement;
    const href = (a.getAttribute('href') ?? '').replace(/[<>()]/g, '\\$&');
    const description = byClass(a, 'kg-bookmark-description')?.textContent?.trim();
    return `\n\n[${markdown.escape(bookmarkTitle(a))}](${href})\n\n${description ? `${markdown.escape(description)}\n\n` : ''}`;
  },
});
// Images the old site served from its own paths (`/content/images/x.jpg`) stay there: absolute on --base-url.
let imageBase: string | undefined;
markdown.addRule('rootImage', {
  filter: (node) => node.nodeName === 'IMG' && imageBase !== undefined && /^\/(?!\/)/.test(node.getAttribute('src') ?? ''),
  replacement: (_content, node) => {
    const img = node as HTMLElement;
    const src = new URL(img.getAttribute('src') ?? '', imageBase).href.replace(/[<>()]/g, '\\$&');
    const title = img.getAttribute('title')?.replace(/"/g, '\\"');
    return `![${markdown.escape(img.getAttribute('alt') ?? '')}](${src}${title ? ` "${title}"` : ''})`;
  },
});
// E = MC², H₂O: kept as inline HTML, which the renderer's allow-list lets through.
markdown.addRule('subSup', { filter: ['sub', 'sup'], replacement: (content, node) => `<${node.nodeName.toLowerCase()}>${content}</${node.nodeName.toLowerCase()}>` });
// Video embeds stay as HTML: the renderer keeps YouTube and Vimeo iframes and drops the rest.
markdown.keep(['iframe']);
markdown.addRule('strikethrough', { filter: ['del', 's', 'strike' as keyof HTMLElementTagNameMap], replacement: (content) => `~~${content}~~` });
markdown.addRule('preformatted', {
  filter: (node) => node.nodeName === 'PRE' && !node.querySelector('code'),
  replacement: (_content, node) => `\n\n\`\`\`\n${node.textContent?.replace(/\n$/, '') ?? ''}\n\`\`\`\n\n`,
});
markdown.addRule('table', {
  filter: (node) => node.nodeName === 'TABLE' && pipeTable(node) !== null,
  replacement: (_content, node) => `\n\n${pipeTable(node)}\n\n`,
});
// Tables a pipe table cannot hold (no heading row, merged cells, lists inside) stay as HTML.
markdown.keep((node) => node.nodeName === 'TABLE');

/**
 * HTML -> markdown: headings, lists, links, code blocks with their language, images with their
 * URLs (root-relative ones on `baseUrl` when given), tables.
 */
export function htmlToMarkdown(html: string, baseUrl?: string): string {
  const depth = nesting(html);
  if (depth > MAX_DEPTH) throw invalidInput(`its HTML is nested ${depth} elements deep (at most ${MAX_DEPTH} are read; a real post nests a few dozen)`);
  imageBase = baseUrl;
  try {
    return markdown.turndown(html).trim();
  } catch (err) {
    if (err instanceof RangeError) throw invalidInput('its HTML is nested too deeply to read');
    throw err;
  } finally {
    imageBase = undefined;
  }
}

// Turndown walks the tree recursively: 1,000 levels take 0.4 s, 2,000 overflow the stack.
const MAX_DEPTH = 200;
// Elements that never hold themselves (an opening <p> or <li> closes the one before) and void ones.
const FLAT = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'tbody', 'thead', 'tfoot', 'option', 'br', 'img', 'hr', 'input', 'meta', 'link', 'wbr', 'source', 'area', 'col', 'embed', 'param', 'track', 'base']);
const TAG = /<(\/?)([a-zA-Z][\w-]*)[^<>]*?(\/?)>/g;

/** How deep the elements of this HTML nest, counted on its tags (a bound, not a parse). */
function nesting(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const [, closing, name, selfClosing] of html.matchAll(TAG)) {
    if (selfClosing || FLAT.has(name.toLowerCase())) continue;
    depth = closing ? Math.max(0, depth - 1) : depth + 1;
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

const text = new TurndownService();
text.escape = (s: string) => s;
text.addRule('text', {
  filter: () => true,
  replacement: (content, node) => (BLOCK.has(node.nodeName) ? `\n${content}\n` : content),
});
const BLOCK = new Set(['P', 'DIV', 'LI', 'BR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'TR']);

/** The text of an HTML fragment (a title or an excerpt with entities and tags): one line. */
export function htmlToText(html: string): string {
  return text.turndown(html).replace(/\s+/g, ' ').trim();
}

/** A GFM pipe table for a simple table with a heading row, else null. */
function pipeTable(table: HTMLElement): string | null {
  const rows = Array.from(table.children).flatMap((c) => (c.nodeName === 'TR' ? [c] : ['THEAD', 'TBODY', 'TFOOT'].includes(c.nodeName) ? Array.from(c.children).filter((r) => r.nodeName === 'TR') : []));
  if (rows.length === 0) return null;
  const cells = rows.map((r) => Array.from(r.children).filter((c) => c.nodeName === 'TH' || c.nodeName === 'TD'));
  const head = rows[0].parentElement?.nodeName === 'THEAD' || cells[0].every((c) => c.nodeName === 'TH');
  const complex = cells.flat().some((c) => Number(c.getAttribute('colspan') ?? 1) > 1 || Number(c.getAttribute('rowspan') ?? 1) > 1 || c.querySelector('ul, ol, table, pre, blockquote, h1, h2, h3, h4, h5, h6'));
  if (!head || complex || cells[0].length === 0) return null;
  const width = Math.max(...cells.map((r) => r.length));
  const line = (row: Element[]) => `| ${Array.from({ length: width }, (_, i) => cell(row[i])).join(' | ')} |`;
  const align = cells[0].map((c) => ALIGN[(c.getAttribute('align') ?? '').toLowerCase()] ?? '---');
  while (align.length < width) align.push('---');
  return [line(cells[0]), `| ${align.join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

const ALIGN: Record<string, string> = { left: ':--', right: '--:', center: ':-:' };

/** One cell's markdown on one line: paragraphs joined with <br>, pipes escaped. */
function cell(node: Element | undefined): string {
  if (!node) return '';
  return markdown
    .turndown(node.innerHTML)
    .trim()
    .split(/\n\s*\n|\n/)
    .join('<br>')
    .replace(/\|/g, '\\|');
}
