import { AppError, invalidInput } from '../errors.js';
import { parseDateTime } from '../lib/datetime.js';
import { toItem } from './assemble.js';
import { lexicalToHtml, mobiledocToHtml } from './ghost-documents.js';
import { htmlToMarkdown } from './html.js';
import type { ImportItem, ImportNotes, ReaderOptions } from './types.js';

type Row = Record<string, any>;

const NOT_GHOST = 'not a Ghost export: expected { "db": [{ "data": { "posts": [...] } }] } (Ghost Admin > Settings > Labs > Export)';
/** Ghost's divider between the free preview and the part for members (the paywall card). */
const MEMBERS_ONLY = '<!--members-only-->';
const SCRIPT = /<script\b/i;
/** The tables of an export the reader uses: each, when present, a list of records. */
const TABLES = ['posts', 'posts_meta', 'tags', 'posts_tags', 'users', 'posts_authors'];

/**
 * The data of a Ghost export (Settings > Labs > Export: `{ db: [{ meta, data }] }`, or older
 * `{ meta, data }`), or why this parsed JSON is not one (a table that is not a list of records).
 */
export function ghostData(doc: unknown): { data: Row } | { problem: string } {
  const d = doc as Row | null;
  const data = Array.isArray(d?.db) ? d.db[0]?.data : d?.data;
  if (!data || !Array.isArray(data.posts)) return { problem: NOT_GHOST };
  for (const table of TABLES) {
    const rows = data[table];
    if (rows !== undefined && !(Array.isArray(rows) && rows.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r)))) {
      return { problem: `not a readable Ghost export: data.${table} is not a list of records` };
    }
  }
  return { data };
}

/**
 * The posts of a Ghost JSON export: their html (or Lexical / Mobiledoc when it has none) as
 * markdown, tags in order (the primary tag first, standing for the category), authors,
 * published_at and updated_at, slugs, meta title and description (posts_meta in Ghost 4+),
 * feature image and its alt. Pages are skipped; drafts and email-only posts stay drafts.
 */
export function readGhost(file: string, data: Row, opts: ReaderOptions, notes: ImportNotes): ImportItem[] {
  const byId = (rows: Row[] | undefined) => new Map((rows ?? []).map((r) => [r.id, r]));
  const grouped = (rows: Row[] | undefined, key: string) => {
    const out = new Map<string, Row[]>();
    for (const r of [...(rows ?? [])].sort((a, b) => Number(a.sort_order ?? 0) - Number(b.sort_order ?? 0))) out.set(r.post_id, [...(out.get(r.post_id) ?? []), r[key]]);
    return out;
  };
  const tags = byId(data.tags);
  const users = byId(data.users);
  const meta = new Map((data.posts_meta ?? []).map((m: Row) => [m.post_id, m]));
  const postTags = grouped(data.posts_tags, 'tag_id');
  const postAuthors = grouped(data.posts_authors, 'author_id');
  const unknownCards = new Set<string>();
  const items: ImportItem[] = [];
  // Ghost 4+ writes its own address as __GHOST_URL__ in exports.
  const site = (s: unknown) => (typeof s === 'string' ? s.replaceAll('__GHOST_URL__', opts.baseUrl.replace(/\/+$/, '')) : undefined);
  for (const [n, post] of (data.posts as Row[]).entries()) {
    opts.onItem?.(n, data.posts.length);
    // Ghost 2+ writes `type: page`; Ghost 0.x and 1.x marked a page with `page: 1` (or true).
    const page = post.type === 'page' || (post.type === undefined && (post.page === 1 || post.page === true));
    const source = `${file}: ${page ? 'page' : 'post'} "${post.slug ?? post.id}"`;
    if (page) {
      notes.skip('Ghost pages (svc imports posts)', source);
      continue;
    }
    try {
      if (typeof post.title !== 'string' || post.title.trim() === '') throw invalidInput('the post has no title: give it one in Ghost and export again');
      const m: Row = meta.get(post.id) ?? {};
      const html = site(post.html) ?? site(documentHtml(post, unknownCards)) ?? '';
      // Scripts (a markdown or HTML card's embedded widget) are never published by svc.
      if (SCRIPT.test(typeof post.html === 'string' ? post.html : String(post.lexical ?? post.mobiledoc ?? ''))) notes.warn('Ghost posts with scripts (embedded widgets) lost them: svc publishes no scripts', source);
      const postTagNames = (postTags.get(post.id) ?? []).map((id) => tags.get(id)).filter((t): t is Row => !!t && t.visibility !== 'internal' && !String(t.name).startsWith('#')).map((t) => String(t.name));
      const authors = (postAuthors.get(post.id) ?? [post.author_id]).map((id) => users.get(id)?.name).filter((n): n is string => typeof n === 'string');
      const status = String(post.status ?? 'draft');
      if (status === 'sent') notes.warn('Ghost posts sent only by email were imported as drafts', source);
      // svc has no members: a post for members or paid subscribers, published, would be public whole.
      const forMembers = typeof post.visibility === 'string' && post.visibility !== 'public';
      if (forMembers) notes.warn('Ghost posts for members or paid subscribers were imported as drafts, whole (svc has no members: published, they would be public; cut them at <!--members-only--> before publishing)', source);
      if (post.canonical_url) notes.warn('Ghost canonical URLs are not carried over (svc serves each article at its own url)', source);
      items.push(
        toItem(
          {
            source,
            title: typeof post.title === 'string' ? post.title : undefined,
            slug: typeof post.slug === 'string' ? post.slug : undefined,
            // The members-only divider stays in the markdown (an HTML comment, never rendered), so a
            // person can cut a paid post there before publishing it.
            body: html.split(MEMBERS_ONLY).map((part) => htmlToMarkdown(part, opts.baseUrl)).join(`\n\n${MEMBERS_ONLY}\n\n`),
            // Ghost has no categories; its primary tag (the first) plays that part in themes.
            categories: postTagNames.slice(0, 1),
            tags: postTagNames,
            metaTitle: m.meta_title ?? post.meta_title ?? undefined,
            description: m.meta_description ?? post.meta_description ?? post.custom_excerpt ?? undefined,
            // Ghost 0.x called the feature image `image`.
            image: site(post.feature_image ?? post.image),
            imageAlt: m.feature_image_alt ?? undefined,
            authors,
            draft: forMembers || !(status === 'published' || status === 'scheduled'),
            publishedAt: ghostDate(post.published_at, 'published_at'),
            updatedAt: ghostDate(post.updated_at, 'updated_at'),
          },
          opts,
          notes,
        ),
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      notes.problem(source, err.message);
    }
  }
  for (const name of unknownCards) notes.warn(`Ghost "${name}" cards have no markdown form and were left out`, file);
  return items;
}

/** The body from the post's Lexical or Mobiledoc tree, for exports without html. */
function documentHtml(post: Row, unknownCards: Set<string>): string {
  const [name, doc, render] = post.lexical ? ['lexical', post.lexical, lexicalToHtml] as const : ['mobiledoc', post.mobiledoc, mobiledocToHtml] as const;
  if (!doc) return '';
  try {
    return render(doc, unknownCards);
  } catch (err) {
    throw invalidInput(`its ${name} body cannot be read: ${(err as Error).message}`);
  }
}

/** Ghost writes UTC: ISO with Z (Ghost 2+), `YYYY-MM-DD hh:mm:ss` (older), or epoch milliseconds (1.x). */
function ghostDate(value: unknown, field: string): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'number') {
    const d = new Date(value);
    if (Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) throw invalidInput(`${field} ${value} is not a date`);
    return d.toISOString();
  }
  if (typeof value !== 'string') throw invalidInput(`${field} is neither a date nor a number`);
  try {
    return parseDateTime(value, { naive: 'utc' }).iso;
  } catch (err) {
    throw invalidInput(`${field}: ${(err as Error).message}`);
  }
}
