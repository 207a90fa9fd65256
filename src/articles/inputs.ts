import { z } from 'zod';
import { SLUG_MAX, isValidSlug, normaliseSlug } from '../lib/slug.js';
import { atMostChars } from '../lib/validate.js';
import { BODY_MAX_CHARS } from './body-limits.js';
import { CONTENT_TYPE_NAMES, type ContentType, contentTypeNamed } from './categories.js';

export const ARTICLE_STATUSES = ['draft', 'scheduled', 'published'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

const contentType = z
  .string()
  .transform((v) => contentTypeNamed(v) ?? v)
  .refine((v): v is ContentType => (CONTENT_TYPE_NAMES as string[]).includes(v), {
    message: `content type must be one of ${CONTENT_TYPE_NAMES.join(', ')}`,
  }) as unknown as z.ZodType<ContentType, z.ZodTypeDef, string>;

// Limits are the columns' (migrations/2026-11-22-0300), counted in characters as PostgreSQL
// counts varchar(n); keywords become tags, whose titles are stored in varchar(200).
export const KEYWORD_MAX = 200;
export const KEYWORDS_MAX = 50;
/** The longest each text field may be, in characters (code points). */
export const TEXT_MAX = { title: 500, metaTitle: 500, metaDescription: 2000, focusKeyword: 200, featuredImageUrl: 2000, imageAlt: 500, author: 200 } as const;

/** Explicit slugs of any script, stored lower case and in NFC (one spelling per slug). */
export const slugInput = z
  .string()
  .transform(normaliseSlug)
  .superRefine(atMostChars(SLUG_MAX))
  .refine((v) => v.length > 0, 'may not be empty')
  .refine(
    (v) => v.length === 0 || isValidSlug(v),
    (v) => ({ message: `must be letters, marks and digits of any script joined by single dashes, e.g. my-first-post or 京都-カフェ (or by dots or underscores: v1.2_notes), not ${JSON.stringify(v)}` }),
  );

const text = (max: number) => z.string().trim().superRefine(atMostChars(max));
const optionalText = (max: number) => text(max).nullish().transform((v) => (v ? v : null));

const imageUrl = z
  .string()
  .trim()
  .superRefine(atMostChars(TEXT_MAX.featuredImageUrl))
  .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'image must be an http(s) URL')
  .nullish()
  .transform((v) => v ?? null);

const keywords = z
  .union([z.array(z.string()), z.string()], { errorMap: () => ({ message: 'must be text or a list of text' }) })
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((k) => k.trim()).filter(Boolean))
  .pipe(z.array(text(KEYWORD_MAX)).max(KEYWORDS_MAX));

const fields = {
  slug: slugInput.optional(),
  contentType: contentType.optional(),
  bodyMarkdown: z.string().max(BODY_MAX_CHARS, 'body is larger than 2 MB'),
  metaTitle: optionalText(TEXT_MAX.metaTitle),
  metaDescription: optionalText(TEXT_MAX.metaDescription),
  focusKeyword: optionalText(TEXT_MAX.focusKeyword),
  secondaryKeywords: keywords.optional(),
  featuredImageUrl: imageUrl,
  imageAlt: optionalText(TEXT_MAX.imageAlt),
  author: optionalText(TEXT_MAX.author),
  targetLength: z.coerce.number().int().min(0).max(100_000).optional(),
};

/** Title may be omitted when the markdown starts with a `# H1`, which then becomes the title. */
export const articleCreateInput = z.object({
  title: text(TEXT_MAX.title).optional(),
  ...fields,
  bodyMarkdown: fields.bodyMarkdown.default(''),
});
export type ArticleCreateInput = z.input<typeof articleCreateInput>;

export const articleUpdateInput = z.object({
  title: text(TEXT_MAX.title).refine((v) => v.length > 0, 'may not be empty').optional(),
  ...fields,
  bodyMarkdown: fields.bodyMarkdown.optional(),
  featuredImageUrl: imageUrl.optional(),
  // Absent fields stay unchanged: optionalText alone turns undefined into null (a wipe).
  metaTitle: fields.metaTitle.optional(),
  metaDescription: fields.metaDescription.optional(),
  focusKeyword: fields.focusKeyword.optional(),
  imageAlt: fields.imageAlt.optional(),
  author: fields.author.optional(),
});
export type ArticleUpdateInput = z.input<typeof articleUpdateInput>;

export const articleListInput = z.object({
  status: z.enum(ARTICLE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ArticleListInput = z.input<typeof articleListInput>;
