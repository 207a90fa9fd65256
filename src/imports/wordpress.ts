import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, invalidInput } from '../errors.js';
import { parseDateTime } from '../lib/datetime.js';
import { toItem } from './assemble.js';
import { platformSyntax } from './body-syntax.js';
import { autop, isClassic } from './autop.js';
import { htmlToMarkdown, htmlToText } from './html.js';
import type { ImportItem, ImportNotes, ReaderOptions } from './types.js';
import { withMediaShortcodes } from './wordpress-media.js';

// The only importer of fast-xml-parser. A WordPress export (Tools > Export, "WXR") is RSS 2.0 with
// wp:, content:, excerpt: and dc: elements, one <item> per post, page, attachment or menu item.

type Node = Record<string, any>;

const LISTS = new Set(['rss.channel.item', 'rss.channel.item.category', 'rss.channel.item.wp:postmeta', 'rss.channel.wp:author']);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, isArray: (_name, jpath) => LISTS.has(String(jpath)) });

/** Does this XML look like a WordPress export (so a wrong .xml is named as such)? */
export const looksLikeWxr = (text: string) => /<rss[\s>]/.test(text) && /wordpress\.org\/export\//.test(text);

/** The text of an element (CDATA included), whether or not it carries attributes. */
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' && v !== null && typeof (v as Node)['#text'] === 'string' ? (v as Node)['#text'] : '').trim();

/**
 * The posts of a WordPress export: status publish (and future, scheduled) or draft/pending/private
 * (drafts here), post_date_gmt and post_modified_gmt, categories and tags, slugs, the content HTML
 * as markdown, the excerpt and Yoast / Rank Math meta fields, the featured image from its
 * attachment. Pages, attachments, menu items and trashed posts are skipped and counted.
 */
export function readWordPress(file: string, text: string, opts: ReaderOptions, notes: ImportNotes): ImportItem[] {
  // Entity declarations are how XML bombs work; a WordPress export never has any.
  if (/<!ENTITY/i.test(text)) {
    notes.problem(file, 'XML entity declarations are not accepted (a WordPress export has none)');
    return [];
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    notes.problem(file, `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
    return [];
  }
  let channel: Node | undefined;
  try {
    channel = parser.parse(text)?.rss?.channel;
  } catch (err) {
    // fast-xml-parser refuses elements nested more than 100 deep (a WordPress export nests about 5).
    notes.problem(file, `not a WordPress export as WordPress writes it: ${(err as Error).message.replace(/\.$/, '')} (more than 100 elements inside each other)`);
    return [];
  }
  if (!channel || !looksLikeWxr(text)) {
    notes.problem(file, 'not a WordPress export (WXR): expected <rss> with a <channel> of wp: items');
    return [];
  }
  const rows: Node[] = channel.item ?? [];
  const authors = new Map<string, string>((channel['wp:author'] ?? []).map((a: Node) => [str(a['wp:author_login']), str(a['wp:author_display_name'])]));
  const attachments = new Map(rows.filter((r) => str(r['wp:post_type']) === 'attachment').map((r) => [str(r['wp:post_id']), { url: str(r['wp:attachment_url']), alt: meta(r, '_wp_attachment_image_alt') }]));
  const items: ImportItem[] = [];
  const sources = new Set<string>();
  for (const [n, row] of rows.entries()) {
    opts.onItem?.(n, rows.length);
    const type = str(row['wp:post_type']);
    const slug = decodeSlug(str(row['wp:post_name']));
    let source = `${file}: ${type || 'item'} "${slug || htmlToText(str(row.title)) || str(row['wp:post_id'])}"`;
    // Two items with one name (WordPress allows it in an export) stay two: the later is named by its ID.
    if (sources.has(source)) source += ` (ID ${str(row['wp:post_id']) || sources.size + 1})`;
    sources.add(source);
    const status = str(row['wp:status']);
    if (type === 'attachment') notes.skip('WordPress attachments (their URLs stay in the posts that show them)', source);
    else if (type === 'page') notes.skip('WordPress pages (svc imports posts)', source);
    else if (type !== 'post') notes.skip(`WordPress "${type}" items`, source);
    else if (['trash', 'auto-draft', 'inherit'].includes(status)) notes.skip('WordPress posts in the trash or auto-drafts', source);
    else {
      try {
        items.push(readPost(row, { source, slug, status, authors, attachments }, opts, notes));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        notes.problem(source, err.message);
      }
    }
  }
  return items;
}

interface PostContext {
  source: string;
  slug: string;
  status: string;
  authors: Map<string, string>;
  attachments: Map<string, { url: string; alt: string | undefined }>;
}

function readPost(row: Node, c: PostContext, opts: ReaderOptions, notes: ImportNotes): ImportItem {
  const terms = (domain: string) => (row.category ?? []).filter((t: Node) => t['@_domain'] === domain && t['@_nicename'] !== 'uncategorized').map((t: Node) => htmlToText(str(t)));
  const password = str(row['wp:post_password']) !== '';
  if (password) notes.warn('Password-protected WordPress posts were imported as drafts', c.source);
  else if (c.status === 'private') notes.warn('Private WordPress posts were imported as drafts', c.source);
  const rankMathKeywords = (meta(row, 'rank_math_focus_keyword') ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const thumbnail = c.attachments.get(meta(row, '_thumbnail_id') ?? '');
  const creator = str(row['dc:creator']);
  const title = htmlToText(str(row.title));
  const content = withMediaShortcodes(withCaptions(str(row['content:encoded'])), { attachments: c.attachments, note: (text) => notes.warn(text, c.source) });
  if (keptShortcode(content)) notes.warn('WordPress shortcodes were kept as text', c.source);
  // htmlToMarkdown refuses HTML nested too deep, before anything else reads it.
  const body = platformSyntax(htmlToMarkdown(isClassic(content) ? autop(content) : content, opts.baseUrl), (text) => notes.warn(text, c.source));
  return toItem(
    {
      source: c.source,
      title,
      // WordPress publishes a post with an empty title; svc needs one.
      untitled: title ? undefined : { title: firstWords(htmlToText(content)) || c.slug || `Untitled ${str(row['wp:post_id'])}`, from: 'the start of their text (WordPress showed none)' },
      slug: c.slug || undefined,
      body,
      categories: terms('category'),
      tags: terms('post_tag'),
      focusKeyword: meta(row, '_yoast_wpseo_focuskw') ?? rankMathKeywords[0],
      keywords: rankMathKeywords.slice(1),
      // SEO plugins' titles may hold template variables (%%title%% %%sep%% %%sitename%%): those are not titles.
      metaTitle: [meta(row, '_yoast_wpseo_title'), meta(row, 'rank_math_title')].find((t) => t && !t.includes('%')),
      description: meta(row, '_yoast_wpseo_metadesc') ?? meta(row, 'rank_math_description') ?? (htmlToText(str(row['excerpt:encoded'])) || undefined),
      image: thumbnail?.url || undefined,
      imageAlt: thumbnail?.alt,
      authors: creator ? [c.authors.get(creator) || creator] : [],
      draft: password || !(c.status === 'publish' || c.status === 'future'),
      publishedAt: gmt(row['wp:post_date_gmt']),
      updatedAt: gmt(row['wp:post_modified_gmt']),
    },
    opts,
    notes,
  );
}

const TITLE_WORDS = 8;

function firstWords(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? '…' : '');
}

function meta(row: Node, key: string): string | undefined {
  const found = (row['wp:postmeta'] ?? []).find((m: Node) => str(m['wp:meta_key']) === key);
  const value = found ? str(found['wp:meta_value']) : '';
  return value || undefined;
}

/** WordPress writes `*_gmt` dates in UTC without an offset, and zeros for a draft never saved with a date. */
function gmt(v: unknown): string | undefined {
  const value = str(v);
  if (!value || value.startsWith('0000-00-00')) return undefined;
  return parseDateTime(value, { naive: 'utc' }).iso;
}

/** WordPress stores non-Latin slugs percent-encoded (`%d0%bf...`): the URL's real slug is the decoded one. */
function decodeSlug(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

// `caption="text"` up to the quote that ends the value (followed by another attribute or the end).
const CAPTION_ATTRIBUTE = /\bcaption=(["'])(.*?)\1(?=\s+[\w-]+=|\s*$)/i;

/**
 * `[caption ...]<img ...> Caption[/caption]` (classic editor) -> a figure with its caption.
 * Found with indexOf and positions that only move forward, so a hostile post (thousands of
 * `[caption` never closed) costs one pass, not one per `[caption` (which took 11 s for 580 KB).
 */
export function withCaptions(html: string): string {
  const image = /\s*((?:<a\b[^<>]*>\s*)?<img\b[^<>]*>(?:\s*<\/a>)?)/y;
  let out = '';
  let at = 0;
  let close = -1;
  let bracket = -1;
  // Searched in the text itself (case-insensitive regexps from a position): a lower-cased copy may differ in length.
  const find = (re: RegExp, from: number) => {
    re.lastIndex = from;
    return re.exec(html)?.index ?? -1;
  };
  const OPEN = /\[caption/gi;
  const CLOSE = /\[\/caption\]/gi;
  for (let start = find(OPEN, 0); start !== -1; start = find(OPEN, Math.max(start + 1, at))) {
    if (close < start) close = find(CLOSE, start);
    if (close === -1) break;
    if (bracket < start) bracket = html.indexOf(']', start);
    if (bracket === -1 || bracket >= close) continue;
    image.lastIndex = bracket + 1;
    const found = image.exec(html);
    if (!found || image.lastIndex > close) continue;
    // WordPress before 3.4 kept the caption in the shortcode's `caption` attribute, not after the image.
    const caption = html.slice(image.lastIndex, close).trim() || (CAPTION_ATTRIBUTE.exec(html.slice(start, bracket))?.[2] ?? '').replace(/</g, '&lt;').replace(/>/g, '&gt;').trim();
    out += `${html.slice(at, start)}<figure>${found[1]}${caption ? `<figcaption>${caption}</figcaption>` : ''}</figure>`;
    at = close + '[/caption]'.length;
  }
  return out + html.slice(at);
}

// A shortcode left in a body: one with attributes (`[name key="v"]`), a closing tag (`[/name]`) or
// a plugin's bare name (`[contact-form-7]`, `[jetpack_subscription_form]`). A bracketed word or
// phrase of prose (`[sic]`, `coracles [simple boat]`) shows as written on WordPress too: not one.
const SHORTCODE_WITH_ATTRIBUTES = /\[[a-z][\w-]*\s[^\]\n]*=[^\]\n]*\]/i;
const SHORTCODE_CLOSING = /\[\/[a-z][\w-]*\]/i;
const SHORTCODE_BARE = /\[[a-z]\w*[-_][\w-]*\]/i;
const keptShortcode = (html: string) => SHORTCODE_WITH_ATTRIBUTES.test(html) || SHORTCODE_CLOSING.test(html) || SHORTCODE_BARE.test(html);
