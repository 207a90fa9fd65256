import { type ContentType, contentTypeNamed } from '../articles/categories.js';
import { KEYWORDS_MAX } from '../articles/inputs.js';
import { leadingH1 } from '../lib/markdown.js';
import { isValidSlug, normaliseSlug, slugify } from '../lib/slug.js';
import type { ImportItem, ImportNotes, ReaderOptions } from './types.js';

/** A post as any reader finds it, before it becomes article input. */
export interface RawPost {
  source: string;
  title?: string;
  slug?: string;
  /** Markdown. */
  body: string;
  /** The title the old site showed for a post without one (Jekyll's from the file name), and where it came from, for the note. */
  untitled?: { title: string; from: string };
  contentType?: string;
  categories?: string[];
  tags?: string[];
  keywords?: string[];
  focusKeyword?: string;
  metaTitle?: string;
  description?: string;
  image?: string;
  imageAlt?: string;
  authors?: string[];
  targetLength?: number;
  draft: boolean;
  /** UTC ISO. */
  publishedAt?: string;
  updatedAt?: string;
}

/**
 * The article input of a post, the same for every format: the first category that names a
 * content type sets it; every other category becomes a tag (svc's categories are its five
 * content types, and a tag keeps the old grouping listable); tags, then those categories, then
 * keywords become the secondary keywords after the focus keyword, de-duplicated by slug.
 */
export function toItem(post: RawPost, opts: ReaderOptions, notes: ImportNotes): ImportItem {
  const categories = (post.categories ?? []).map((c) => c.trim()).filter(Boolean);
  const typed = post.contentType ? undefined : categories.find((c) => contentTypeNamed(c));
  const contentType = post.contentType ?? (typed ? contentTypeNamed(typed) : undefined);
  const free = categories.filter((c) => c !== typed);
  const seen = new Set<string>(post.focusKeyword ? [slugify(post.focusKeyword)] : []);
  if (typed) seen.add(slugify(typed));
  const secondary: string[] = [];
  for (const k of [...(post.tags ?? []), ...free, ...(post.keywords ?? [])]) {
    const key = slugify(k);
    if (!k.trim() || !key || seen.has(key)) continue;
    seen.add(key);
    secondary.push(k.trim());
  }
  if (secondary.length > KEYWORDS_MAX) {
    notes.warn(`Posts with more than ${KEYWORDS_MAX} tags and categories keep the first ${KEYWORDS_MAX} as tags`, post.source);
    secondary.length = KEYWORDS_MAX;
  }
  const authors = (post.authors ?? []).map((a) => a.trim()).filter(Boolean);
  let title = post.title?.trim() || undefined;
  if (!title && post.untitled && !leadingH1(post.body)) {
    title = post.untitled.title;
    notes.warn(`Posts without a title were given one from ${post.untitled.from} (check it)`, post.source);
  }
  return {
    source: post.source,
    draft: post.draft,
    dates: { publishedAt: post.publishedAt, updatedAt: post.updatedAt },
    input: {
      title,
      slug: post.slug,
      contentType: contentType as ContentType | undefined,
      bodyMarkdown: post.body,
      metaTitle: post.metaTitle?.trim() || undefined,
      metaDescription: post.description?.trim() || undefined,
      focusKeyword: post.focusKeyword?.trim() || undefined,
      secondaryKeywords: secondary,
      featuredImageUrl: post.image ? imageUrl(post.image, opts) : undefined,
      imageAlt: post.imageAlt?.trim() || undefined,
      author: authors.length ? authors.join(', ') : undefined,
      targetLength: post.targetLength,
    },
  };
}

/**
 * A featured image URL: http(s) as is, `//host/x` as https, `/x` on the old site's address. A
 * path relative to the post (a Hugo page bundle's `cover.jpg`) is kept: the import stores that
 * file and points here (imports/images.ts).
 */
export function imageUrl(value: string, opts: ReaderOptions): string {
  const v = value.trim();
  if (/^https?:\/\//i.test(v)) return v;
  if (v.startsWith('//')) return `https:${v}`;
  if (v.startsWith('/')) return new URL(v, opts.baseUrl).href;
  return v;
}

/**
 * The slug a file name gives, kept as it is (lower case: svc finds slugs in any case). One svc
 * cannot serve (`Hello World`, `a--b`) becomes the nearest slug, and the summary lists old and new
 * so the old site can redirect; undefined (a slug from the title) when nothing is left of it.
 */
export function keptSlug(old: string | undefined, source: string, notes: ImportNotes): string | undefined {
  if (old === undefined || old.trim() === '') return undefined;
  const slug = normaliseSlug(old);
  if (isValidSlug(slug)) return slug;
  const moved = slugify(old);
  notes.moved(source, old, moved || '(made from the title)');
  return moved || undefined;
}
