import { z } from 'zod';
import { ARTICLE_STATUSES } from '../../articles/inputs.js';

// The outputSchema of the article tools: what their structuredContent holds (the SDK checks each
// result against it, and so do strict clients). Built once, shared by the tools that return articles.

const destination = z.object({
  kind: z.enum(['headless', 'webhook']),
  state: z.enum(['delivered', 'pending', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  publishedUrl: z.string().nullable(),
});

export const articleSummaryOutput = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  status: z.enum(ARTICLE_STATUSES),
  contentType: z.string(),
  focusKeyword: z.string().nullable(),
  seoScore: z.number().nullable(),
  seoScoreStale: z.boolean(),
  scheduledAt: z.string().nullable(),
  publishError: z.string().nullable(),
  updatedAt: z.string(),
  url: z.string().nullable(),
  publishedAt: z.string().nullable(),
  live: z.boolean(),
  hasUnpublishedChanges: z.boolean(),
  destinations: z.array(destination),
});

export const articleDetailOutput = articleSummaryOutput.extend({
  bodyCharacters: z.number().int(),
  metaTitle: z.string().nullable(),
  metaDescription: z.string().nullable(),
  secondaryKeywords: z.array(z.string()),
  featuredImageUrl: z.string().nullable(),
  imageAlt: z.string().nullable(),
  author: z.string().nullable(),
  targetLength: z.number().int(),
  createdAt: z.string(),
});

const page = { total: z.number().int(), limit: z.number().int(), offset: z.number().int(), nextOffset: z.number().int().nullable() };

export const OUTPUT = {
  list: z.object({ ...page, articles: z.array(articleSummaryOutput) }),
  get: articleDetailOutput,
  written: z.object({ article: articleSummaryOutput, warnings: z.array(z.string()), published: z.boolean().optional() }),
  one: z.object({ article: articleSummaryOutput }),
  published: z.object({ article: articleSummaryOutput, targets: z.array(z.object({ kind: z.enum(['headless', 'webhook']), event: z.enum(['article.published', 'article.updated']) })) }),
  unpublished: z.object({ article: articleSummaryOutput, removedFrom: z.array(z.enum(['headless', 'webhook'])), receiverNotTold: z.boolean().optional(), notifiedOnly: z.boolean() }),
  deleted: z.object({ id: z.string(), slug: z.string(), deleted: z.literal(true), wasPublished: z.boolean(), webhookNotified: z.boolean() }),
  linkTargets: z.object({ topic: z.string(), total: z.number().int(), targets: z.array(z.object({ id: z.string(), title: z.string(), url: z.string(), focusKeyword: z.string().nullable() })) }),
};
