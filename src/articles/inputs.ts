import { z } from 'zod';
import { isValidSlug } from '../lib/slug.js';
import { CONTENT_TYPE_NAMES, type ContentType } from './categories.js';

export const ARTICLE_STATUSES = ['draft', 'scheduled', 'published'] as const;
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number];

const contentType = z
  .string()
  .trim()
  .transform((v) => v.toUpperCase().replace(/[\s-]+/g, '_'))
  .refine((v): v is ContentType => (CONTENT_TYPE_NAMES as string[]).includes(v), {
    message: `content type must be one of ${CONTENT_TYPE_NAMES.join(', ')}`,
  }) as unknown as z.ZodType<ContentType, z.ZodTypeDef, string>;

const slug = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine(isValidSlug, 'slug may hold only lower-case letters, digits and single dashes (e.g. my-first-post)');

const optionalText = (max: number) => z.string().trim().max(max).nullish().transform((v) => (v ? v : null));

const imageUrl = z
  .string()
  .trim()
  .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'image must be an http(s) URL')
  .nullish()
  .transform((v) => v ?? null);

const keywords = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((k) => k.trim()).filter(Boolean));

const fields = {
  slug: slug.optional(),
  contentType: contentType.optional(),
  bodyMarkdown: z.string().max(2_000_000, 'body is larger than 2 MB'),
  metaTitle: optionalText(500),
  metaDescription: optionalText(2000),
  focusKeyword: optionalText(200),
  secondaryKeywords: keywords.optional(),
  featuredImageUrl: imageUrl,
  imageAlt: optionalText(500),
  author: optionalText(200),
  targetLength: z.coerce.number().int().min(0).max(100_000).optional(),
};

/** Title may be omitted when the markdown starts with a `# H1`, which then becomes the title. */
export const articleCreateInput = z.object({
  title: z.string().trim().max(500).optional(),
  ...fields,
  bodyMarkdown: fields.bodyMarkdown.default(''),
});
export type ArticleCreateInput = z.input<typeof articleCreateInput>;

export const articleUpdateInput = z.object({
  title: z.string().trim().min(1).max(500).optional(),
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
