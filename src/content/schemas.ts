import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { QUERY_MAX_LENGTH } from './search-terms.js';

extendZodWithOpenApi(z);

// The wire shapes: snapshots are typed by them, the OpenAPI document is generated from them, and
// a type-level test holds the typed client's interfaces (client/types.ts) equal to them.

const iso = (what: string) => z.string().openapi({ format: 'date-time', description: `${what}, ISO 8601 UTC (e.g. 2026-11-22T03:00:00.000Z)` });

export const termSchema = z
  .object({ id: z.string().openapi({ description: 'Same as slug' }), title: z.string(), slug: z.string() })
  .openapi('Term', { description: 'A category or tag of an article' });

export const articleIndexSchema = z
  .object({
    id: z.string().openapi({ description: 'Stable article id' }),
    slug: z.string(),
    title: z.string().openapi({ description: "The article's H1" }),
    headline: z.string().openapi({ description: 'Same as title' }),
    metaDescription: z.string().openapi({ description: 'The SEO description, else the first ~160 characters of the body' }),
    image: z.string().nullable().openapi({ description: 'Featured image URL' }),
    readingTime: z.number().int().min(1).openapi({ description: 'ceil(words / 200), at least 1' }),
    category: termSchema,
    tags: z.array(termSchema).openapi({ description: 'Focus keyword then secondary keywords, de-duplicated by slug' }),
    publishedAt: iso('First publish to the headless destination'),
    createdAt: iso('Creation'),
    updatedAt: iso('Last (re)publish'),
  })
  .strict()
  .openapi('ArticleIndex', { description: 'An article as listed' });

export const relatedPostSchema = z.object({ id: z.string(), headline: z.string(), slug: z.string() }).strict().openapi('RelatedPost');

// Its own object (not .extend): the generator would write allOf [ArticleIndex, ...], which no
// body could match while both parts refuse unknown fields.
export const articleSchema = z
  .object({
    ...articleIndexSchema.shape,
    html: z.string().openapi({ description: 'Body without the H1 that opens it (the title), rendered and sanitised' }),
    markdown: z.string().openapi({ description: 'Body without the H1 that opens it (the title), as markdown' }),
    metaTitle: z.string(),
    metaKeywords: z.string().openapi({ description: 'Tag titles, comma separated' }),
    focusKeyword: z.string().nullable(),
    imageAlt: z.string().nullable(),
    author: z.string().nullable(),
    wordCount: z.number().int().nullable(),
    url: z.string().nullable().openapi({ format: 'uri', description: 'Site URL + content path + / + slug, composed when served; null without a site or website URL' }),
    outline: z.array(z.string()).openapi({ description: 'Every heading h2-h6, in document order' }),
    schemaJsonLd: z.string().nullable().openapi({ description: 'JSON-LD (Article, and FAQPage when the body has an FAQ), safe inside <script type="application/ld+json">' }),
    deleted: z.literal(false),
    published: z.literal(true),
    relatedPosts: z.array(relatedPostSchema).max(3),
  })
  .strict()
  .openapi('Article', { description: 'One published article (or a draft preview)' });

export const pageSchema = z
  .object({
    articles: z.array(articleIndexSchema),
    total: z.number().int().min(0).openapi({ description: 'Every article of the list (or every match of q)' }),
    page: z.number().int().min(0),
    limit: z.number().int().min(1).max(100),
  })
  .strict()
  .openapi('Page');

export const termCountSchema = z.object({ title: z.string(), slug: z.string(), count: z.number().int().min(0) }).strict().openapi('TermCount');

export const sitemapSchema = z
  .object({
    articles: z.array(z.object({ slug: z.string(), lastmod: iso("The article's updatedAt"), url: z.string().nullable().openapi({ format: 'uri' }) }).strict()),
    categories: z.array(z.object({ slug: z.string(), lastmod: iso('When its list last changed') }).strict()),
    tags: z.array(z.object({ slug: z.string(), lastmod: iso('When its list last changed') }).strict()),
  })
  .strict()
  .openapi('Sitemap');

export const errorSchema = z
  .object({
    error: z
      .object({
        code: z.string().openapi({ description: 'Stable, machine-readable', example: 'invalid_parameter' }),
        message: z.string().openapi({ description: 'For a person' }),
        parameter: z.string().optional().openapi({ description: 'invalid_parameter: the query parameter at fault' }),
        retryAfterSeconds: z.number().int().min(1).optional().openapi({ description: 'rate_limited: whole seconds to wait, as Retry-After' }),
      })
      .passthrough(),
  })
  .openapi('Error');

/** `{ data: T }`: every successful answer's envelope. */
export const envelope = <T extends z.ZodTypeAny>(data: T) => z.object({ data }).strict();

/** The query parameters, with the limits http/content-api.ts enforces. */
export const pageQuerySchema = z.object({
  page: z.number().int().min(0).default(0).openapi({ description: 'Zero-based page' }),
  limit: z.number().int().min(1).max(100).default(10),
  category: z.string().optional().openapi({ description: 'Category slug; an unknown one gives an empty Page' }),
  tag: z.string().optional().openapi({ description: 'Tag slug; an unknown one gives an empty Page' }),
  q: z.string().min(1).max(QUERY_MAX_LENGTH).optional().openapi({ description: 'Search the published articles (best first): every word must match; unspaced scripts (Japanese, Chinese, Korean) match anywhere; accents optional' }),
});

export type Term = z.infer<typeof termSchema>;
export type ArticleIndex = z.infer<typeof articleIndexSchema>;
export type RelatedPost = z.infer<typeof relatedPostSchema>;
export type Article = z.infer<typeof articleSchema>;
export type TermCount = z.infer<typeof termCountSchema>;
