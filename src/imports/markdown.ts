import path from 'node:path';
import { AppError, invalidInput } from '../errors.js';
import { parseDateTime } from '../lib/datetime.js';
import { leadingH1, markdownBlocks, renderHtml } from '../lib/markdown.js';
import { isValidSlug, normaliseSlug } from '../lib/slug.js';
import { type RawPost, keptSlug, toItem } from './assemble.js';
import { notAPost } from './collections.js';
import { normaliseKey, splitFrontMatter } from './front-matter.js';
import { platformSyntax, rootImages } from './body-syntax.js';
import { stripMdx } from './mdx.js';
import { remainingTags, templateTags } from './shortcodes.js';
import type { ImportItem, ImportNotes, ReaderOptions } from './types.js';

/**
 * Each field of an article and the front matter keys that give it (normalised, see
 * normaliseKey), as Hugo, Jekyll, Astro, Next.js blogs and Ghost's markdown exports write them;
 * the first key present wins. docs/importing.md has the same table for people.
 */
export const KEYS = {
  title: ['title'],
  slug: ['slug'],
  permalink: ['url', 'permalink'],
  contentType: ['contenttype'],
  date: ['publishdate', 'publishedat', 'datepublished', 'pubdate', 'date'],
  expiry: ['expirydate', 'unpublishdate'],
  updated: ['lastmod', 'lastmodified', 'lastmodifiedat', 'updated', 'updatedat', 'updateddate', 'dateupdated', 'datemodified', 'modified', 'modifiedat'],
  draft: ['draft'],
  published: ['published'],
  status: ['status'],
  description: ['metadescription', 'description', 'summary', 'excerpt', 'customexcerpt'],
  metaTitle: ['metatitle', 'seotitle'],
  focusKeyword: ['focuskeyword', 'focuskeyphrase'],
  keywords: ['keywords', 'secondarykeywords'],
  tags: ['tags', 'tag'],
  categories: ['categories', 'category'],
  image: ['image', 'featuredimage', 'featureimage', 'cover', 'coverimage', 'heroimage', 'thumbnail', 'images', 'ogimage', 'header', 'banner', 'hero', 'teaser'],
  imageAlt: ['imagealt', 'featuredimagealt', 'featureimagealt', 'coveralt', 'heroimagealt'],
  author: ['author', 'authors'],
  targetLength: ['targetlength'],
} as const;

const KNOWN = new Set<string>(Object.values(KEYS).flat());
const DRAFT_STATUSES = new Set(['draft', 'pending', 'private', 'unpublished']);
const LIVE_STATUSES = new Set(['published', 'publish', 'public', 'scheduled', 'future']);
const JEKYLL_DATE = /^(\d{4}-\d{2}-\d{2})-(.+)$/;

interface Entry {
  key: string;
  value: unknown;
}

/** Read one markdown file into an import item; what is wrong with it goes to `notes` instead. */
export function readMarkdown(file: string, text: string, opts: ReaderOptions, notes: ImportNotes, lang?: string, authorNames?: Map<string, string>, directoryTags?: string[]): ImportItem | undefined {
  if (/^_index(\.[\w-]+)?\.(md|markdown)$/i.test(path.basename(file))) {
    notes.skip('Hugo section pages (_index.md, lists rather than posts)', file);
    return undefined;
  }
  try {
    const split = splitFrontMatter(text);
    const { data } = split;
    let { body } = split;
    const page = notAPost(data);
    if (page) {
      notes.skip(page, file);
      return undefined;
    }
    if (split.repaired) notes.warn(`Front matter read as Hugo reads it: a quoted value running onto unindented lines, which YAML refuses (${split.repaired.join(', ')}); write it on one line or indent it`, file);
    if (/\.mdx$/i.test(file)) {
      const mdx = stripMdx(body);
      if (mdx.changed) notes.warn('MDX import/export lines and components were left out (svc publishes markdown; what the components showed is not in the post)', file);
      body = mdx.body;
    }
    const tagNotes = new Set<string>();
    body = templateTags(body, tagNotes, data);
    for (const text of tagNotes) notes.warn(text, file);
    body = platformSyntax(body, (text) => notes.warn(text, file));
    body = rootImages(body, opts.baseUrl);
    const fm = new Map<string, Entry>();
    for (const [key, value] of Object.entries(data)) if (!fm.has(normaliseKey(key))) fm.set(normaliseKey(key), { key, value });
    const unread = split.unread?.filter((k) => KNOWN.has(normaliseKey(k)));
    if (unread?.length) throw invalidInput(`the front matter is JavaScript (Eleventy) and svc runs no code: ${unread.join(', ')} is an object or list that is not plain JSON; write it as YAML between --- lines`);
    const unknown = [...fm].filter(([n]) => !KNOWN.has(n)).map(([, e]) => e.key);
    if (unknown.length > 0 && opts.strict) throw invalidInput(`front matter keys svc does not carry over: ${unknown.join(', ')} (refused by --strict)`);
    for (const key of unknown) notes.unknownKey(key, file);
    const pick = (field: keyof typeof KEYS): Entry | undefined => {
      for (const n of KEYS[field]) {
        const e = fm.get(n);
        if (e && e.value !== null && e.value !== undefined && e.value !== '') return e;
      }
      return undefined;
    };
    const date = (field: 'date' | 'updated' | 'expiry') => {
      const e = pick(field);
      if (!e) return undefined;
      const raw = e.value instanceof Date ? e.value.toISOString() : typeof e.value === 'string' ? padded(e.value) : undefined;
      if (raw === undefined) throw invalidInput(`${e.key} must be a date such as 2024-05-01 or 2024-05-01T10:00:00Z`);
      let parsed;
      try {
        parsed = parseDateTime(raw, { naive: 'utc', zone: opts.zone });
      } catch (err) {
        throw invalidInput(`${e.key}: ${(err as Error).message}`);
      }
      if (parsed.naive) notes.naiveDate(file, `${e.key} ${raw}`, opts.zone);
      return parsed.iso;
    };
    const named = fileName(file, lang);
    const title = textOf(pick('title'));
    if (title !== undefined) body = keptHeadline(body, title);
    const image = imageOf(pick('image'));
    const post: RawPost = {
      source: file,
      title,
      // An explicit slug is taken as written (refused by name when svc cannot serve it); one
      // from the file name the old generator may have cleaned up, so it moves, listed.
      slug: explicitSlug(textOf(pick('slug')), file, notes) ?? slugOfPermalink(textOf(pick('permalink'))) ?? keptSlug(named.stem, file, notes),
      body,
      untitled: named.jekyll ? { title: titleOfSlug(named.stem), from: 'their file name (as Jekyll shows them)' } : undefined,
      contentType: textOf(pick('contentType')),
      categories: listOf(pick('categories'), named.jekyll),
      tags: listOf(pick('tags'), named.jekyll),
      keywords: listOf(pick('keywords'), false),
      focusKeyword: textOf(pick('focusKeyword')),
      metaTitle: textOf(pick('metaTitle')),
      description: textOf(pick('description')),
      image: image?.url,
      imageAlt: textOf(pick('imageAlt')) ?? image?.alt,
      authors: authorsOf(pick('author'))?.map((a) => authorNames?.get(a) ?? a),
      targetLength: numberOf(pick('targetLength')),
      draft: isDraft(pick('draft'), pick('published'), pick('status')) || named.inDrafts,
      publishedAt: date('date') ?? (named.date ? fromFileName(named.date, file, notes, opts.zone) : undefined),
      updatedAt: date('updated'),
    };
    // Hugo hides a post after its expiryDate: one already past stays hidden here (a draft).
    const expiry = date('expiry');
    if (expiry !== undefined && expiry <= opts.now && !post.draft) {
      post.draft = true;
      notes.warn('Posts past their expiryDate (no longer shown on the old site) were imported as drafts', file);
    } else if (expiry !== undefined && expiry > opts.now) notes.warn('An expiryDate still to come is not carried over (svc does not unpublish on a date): unpublish these then', file);
    if (post.publishedAt && post.publishedAt > opts.now && !post.draft) notes.warn('Posts dated in the future (publishDate or date) wait for that date: scheduled with --publish', file);
    const tags = remainingTags(body);
    if (tags.length > 0) notes.warn(`Template tags of the old site with no meaning svc knows were kept as text (${tags.join(', ')})`, file);
    const collections = [...new Set([...(directoryTags ?? []), ...(post.tags ?? [])])];
    // Set on the new item rather than spread into a copy of it: a copy a post, each field looked up by name.
    const item: ImportItem = toItem(post, opts, notes);
    item.oldUrl = textOf(pick('permalink'));
    item.frontMatter = data;
    item.collections = collections;
    if (directoryTags) item.eleventy = true;
    return item;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    notes.problem(file, err.message);
    return undefined;
  }
}

/**
 * A body that opens with a `# Heading` other than the front matter's title showed both on the old
 * site; svc serves the body without an opening H1 (it is the title), so this one is kept as HTML.
 */
function keptHeadline(body: string, title: string): string {
  const start = body.trimStart();
  // Opens with no H1 (an ATX one is `#` then whitespace, as marked reads it; `## Section` is none): not lexed.
  if (!/^#(?:\s|$)/.test(start) && !/^[^\n]*\n=+[ \t]*(?:\n|$)/.test(start)) return body;
  const h1 = leadingH1(body);
  if (h1 === null || h1 === title.trim()) return body;
  const blocks = markdownBlocks(body);
  const at = blocks.findIndex((b) => b.type === 'heading');
  return blocks.map((b, i) => (i === at ? `${renderHtml(b.raw)}\n${b.raw.match(/\n*$/)![0]}` : b.raw)).join('');
}

/**
 * What the path says: the slug the old site built from it (Hugo and Astro use the file name, a
 * page bundle's folder for `index.md`; Jekyll the name after its `YYYY-MM-DD-` date), that date,
 * and whether it sits in Jekyll's `_drafts`.
 */
function fileName(file: string, lang: string | undefined): { stem: string; date?: string; inDrafts: boolean; jekyll: boolean } {
  let stem = path.basename(file).replace(/\.[^.]+$/, '');
  if (lang && stem.endsWith(`.${lang}`)) stem = stem.slice(0, -lang.length - 1);
  if (stem === 'index') stem = path.basename(path.dirname(file));
  try {
    stem = decodeURIComponent(stem); // the URL the old site served is the decoded name
  } catch {
    // not percent-encoded: the name as it is
  }
  const dated = JEKYLL_DATE.exec(stem);
  const folders = file.split(/[\\/]/);
  return { stem: dated ? dated[2] : stem, date: dated?.[1], inDrafts: folders.includes('_drafts'), jekyll: Boolean(dated) || folders.includes('_drafts') || folders.includes('_posts') };
}

function fromFileName(date: string, file: string, notes: ImportNotes, zone: string | undefined): string | undefined {
  try {
    const parsed = parseDateTime(date, { naive: 'utc', zone });
    notes.naiveDate(file, `file name date ${date}`, zone);
    return parsed.iso;
  } catch {
    return undefined; // not a real date: just part of the name
  }
}

/**
 * A front matter slug as written. Docusaurus writes it as a path (`slug: /my-post`, served under
 * the blog's route): the slashes go; a path of several segments keeps its last, listed as moved.
 */
function explicitSlug(value: string | undefined, file: string, notes: ImportNotes): string | undefined {
  if (value === undefined || !value.includes('/')) return value;
  const segments = value.split('/').filter(Boolean);
  if (segments.length === 0) throw invalidInput(`slug "${value}" names no post (the site's root)`);
  const last = segments[segments.length - 1];
  if (segments.length > 1) notes.moved(file, value, last);
  return last;
}

// A date written with one-digit parts (`2015-11-18 0:27:00`, `2015-1-5`), which Jekyll's and
// Hugo's date readers take: the parts padded to two digits, the rest as written.
const SHORT_PARTS = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([ T])(\d{1,2}):(\d{2}))?(?=$|[:.\sZ+-])/;
const padded = (value: string) =>
  value.trim().replace(SHORT_PARTS, (_, y, mo, d, sep, h, mi) => `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}${sep ? `${sep}${h.padStart(2, '0')}:${mi}` : ''}`);

/** Jekyll's title for a post without one: the slug's words, each capitalised. */
const titleOfSlug = (slug: string) => slug.split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ').trim();

/** The last segment of a `url`/`permalink` that is a plain slug (a pattern like /:title/ is not). */
function slugOfPermalink(url: string | undefined): string | undefined {
  const last = url?.split(/[?#]/)[0].split('/').filter(Boolean).pop();
  if (!last) return undefined;
  let decoded = last.replace(/\.html?$/, '');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    return undefined;
  }
  return isValidSlug(normaliseSlug(decoded)) ? normaliseSlug(decoded) : undefined;
}

function textOf(e: Entry | undefined): string | undefined {
  if (!e) return undefined;
  if (typeof e.value === 'string' || typeof e.value === 'number') return String(e.value);
  throw invalidInput(`${e.key} must be text`);
}

function numberOf(e: Entry | undefined): number | undefined {
  if (!e) return undefined;
  const n = typeof e.value === 'number' ? e.value : typeof e.value === 'string' && /^\s*\d+\s*$/.test(e.value) ? Number(e.value) : NaN;
  if (!Number.isInteger(n)) throw invalidInput(`${e.key} must be a whole number`);
  return n;
}

const nameOf = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : typeof v === 'object' && v !== null ? textish((v as Record<string, unknown>).name ?? (v as Record<string, unknown>).title) : undefined;
const textish = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/**
 * A list as a YAML/TOML list, or a string: comma separated when it holds a comma, else one name
 * (Eleventy's `tags: second tag`) or, in a Jekyll site's `_posts`, space separated as Jekyll reads them.
 * Lists in the list are Hexo's categories each with its parents (`[[Travel, Asia], [Food]]`): their names.
 */
function listOf(e: Entry | undefined, spaces: boolean): string[] | undefined {
  if (!e) return undefined;
  if (typeof e.value === 'string') return e.value.split(e.value.includes(',') || !spaces ? ',' : /\s+/).map((s) => s.trim()).filter(Boolean);
  const items = Array.isArray(e.value) ? e.value.flatMap((v: unknown) => (Array.isArray(v) ? v.map(nameOf) : [nameOf(v)])) : undefined;
  if (!items || items.some((i) => i === undefined)) throw invalidInput(`${e.key} must be a list of names or a comma-separated string`);
  return items as string[];
}

function authorsOf(e: Entry | undefined): string[] | undefined {
  if (!e) return undefined;
  const items = (Array.isArray(e.value) ? e.value : [e.value]).map(nameOf);
  if (items.some((i) => i === undefined)) throw invalidInput(`${e.key} must be a name, a list of names, or { name: ... }`);
  return items as string[];
}

/**
 * `image: url`, `images: [url, ...]` (Hugo), `cover: { image, alt }` (PaperMod), `ogImage: { url }`
 * (Next.js), `image: { path, alt }` (Chirpy), `header: { image, overlay_image, teaser }` (Minimal
 * Mistakes, whose header may hold only a colour: no image then).
 */
function imageOf(e: Entry | undefined): { url: string; alt?: string } | undefined {
  if (!e) return undefined;
  const v = Array.isArray(e.value) ? e.value[0] : e.value;
  if (typeof v === 'string') return { url: v };
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const url = textish(o.image ?? o.overlay_image ?? o.teaser ?? o.src ?? o.url ?? o.path);
    if (url) return { url, alt: textish(o.alt ?? o.image_description) };
    if (Object.keys(o).length === 0 || normaliseKey(e.key) === 'header') return undefined;
  }
  if (v === undefined) return undefined;
  throw invalidInput(`${e.key} must be an image URL or { image: URL, alt: text }`);
}

function isDraft(draft: Entry | undefined, published: Entry | undefined, status: Entry | undefined): boolean {
  if (draft && boolOf(draft)) return true;
  if (published && !boolOf(published)) return true;
  if (status) {
    const s = String(status.value).toLowerCase();
    if (!DRAFT_STATUSES.has(s) && !LIVE_STATUSES.has(s)) throw invalidInput(`${status.key} must be draft or published, not "${status.value}"`);
    return DRAFT_STATUSES.has(s);
  }
  return false;
}

function boolOf(e: Entry): boolean {
  if (typeof e.value === 'boolean') return e.value;
  if (typeof e.value === 'string' && /^(true|false|yes|no)$/i.test(e.value)) return /^(true|yes)$/i.test(e.value);
  throw invalidInput(`${e.key} must be true or false`);
}
