import { z } from 'zod';
import { ARTICLE_STATUSES } from '../../articles/inputs.js';
import { SCOPES } from '../../auth/scopes.js';
import { SEARCH_INTENTS } from '../../keywords/inputs.js';
import { BILLING_STATUSES } from '../../workspaces/inputs.js';
import { ROLES } from '../../workspaces/roles.js';
import { CREDIT_KINDS, type CreditKind } from '../../workspaces/usage.js';

// The outputSchema of the article tools: what their structuredContent holds (the SDK checks each
// result against it, and so do strict clients). Built once, shared by the tools that return articles.

/** Times are UTC ISO 8601 (`2026-11-22T03:00:00.000Z`), advertised as `format: date-time`. */
const time = () => z.string().datetime();

const destination = z.object({
  kind: z.enum(['headless', 'webhook']),
  state: z.enum(['delivered', 'pending', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: time().nullable(),
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
  scheduledAt: time().nullable(),
  publishError: z.string().nullable(),
  updatedAt: time(),
  url: z.string().nullable(),
  publishedAt: time().nullable(),
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
  createdAt: time(),
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

// The outputSchema of the other tools (site profile, audit, keywords, previews), each listing
// every field its structuredContent holds: the schemas are strict, as zod objects become
// `additionalProperties: false`, so a field added to a result must be added here.

// Functions, not shared instances: the SDK's converter turns a reused schema into a $ref, which
// some clients do not follow.
const usage = () => z.object({ used: z.number().int(), allowed: z.number().int() });

export const siteProfileOutput = z.object({
  workspace: z.object({ id: z.string(), name: z.string(), websiteUrl: z.string(), siteUrl: z.string().nullable(), contentPath: z.string(), autoPublish: z.boolean() }),
  plan: z.string(),
  billingStatus: z.enum(BILLING_STATUSES),
  graceUntil: time().nullable(),
  usage: z.object(Object.fromEntries(CREDIT_KINDS.map((kind) => [kind, usage()])) as Record<CreditKind, ReturnType<typeof usage>>),
  scopes: z.array(z.enum(SCOPES)),
  role: z.enum(ROLES),
});

export const auditOutput = z.object({
  articleId: z.string(),
  slug: z.string(),
  seoScore: z.number().int().min(0).max(100),
  auditedAt: time(),
  checks: z.array(z.object({ id: z.string(), label: z.string(), weight: z.number(), passed: z.boolean(), message: z.string() })),
  warnings: z.array(z.string()),
  stats: z.object({
    wordCount: z.number().int(),
    targetLength: z.number().int(),
    titleLength: z.number().int(),
    metaTitleLength: z.number().int(),
    metaDescriptionLength: z.number().int(),
    h2: z.number().int(),
    h3: z.number().int(),
    images: z.number().int(),
    imagesWithoutAlt: z.number().int(),
    internalLinks: z.number().int(),
    externalLinks: z.number().int(),
  }),
});

const metrics = () => ({
  keyword: z.string(),
  searchVolume: z.number().nullable(),
  cpc: z.number().nullable(),
  competition: z.number().nullable(),
  competitionLevel: z.enum(['LOW', 'MEDIUM', 'HIGH']).nullable(),
  difficulty: z.number().nullable(),
  intent: z.enum(SEARCH_INTENTS).nullable(),
  normalized: z.string(),
  clicks: z.number().nullable(),
  impressions: z.number().nullable(),
  position: z.number().nullable(),
  researchedAt: time().nullable(),
  ideasFetchedAt: time().nullable(),
});
const monthlySearches = () => z.array(z.object({ month: z.string(), searchVolume: z.number().nullable() }));
const storedKeyword = () =>
  z.object({
  ...metrics(),
  monthlySearches: monthlySearches(),
  id: z.string(),
  location: z.string(),
  language: z.string(),
  source: z.string(),
  fetchedAt: time(),
  createdAt: time(),
  updatedAt: time(),
});

export const researchOutput = z.object({
  provider: z.string(),
  location: z.string(),
  language: z.string(),
  spent: z.number().int(),
  usage: usage(),
  keywords: z.array(storedKeyword().extend({ fromStore: z.boolean() })),
  ideas: z.array(storedKeyword()).optional(),
});

export const keywordListOutput = z.object({
  ...page,
  counts: z.object({ stored: z.number().int(), targeted: z.number().int(), gaps: z.number().int(), conflicts: z.number().int(), untracked: z.number().int() }),
  keywords: z.array(
    z.object({
      ...metrics(),
      id: z.string().nullable(),
      location: z.string().nullable(),
      language: z.string().nullable(),
      source: z.string().nullable(),
      fetchedAt: time().nullable(),
      status: z.enum(['targeted', 'gap', 'conflict', 'untracked']),
      conflict: z.boolean(),
      targets: z.array(z.object({ articleId: z.string(), slug: z.string(), title: z.string(), status: z.enum(ARTICLE_STATUSES), role: z.enum(['focus', 'secondary']) })),
    }),
  ),
});

/** preview_article makes a link (every field but `revoked`) or revokes them (`articleId`, `slug`, `revoked`). */
export const previewOutput = z.object({
  articleId: z.string(),
  slug: z.string(),
  id: z.string().optional(),
  token: z.string().optional(),
  expiresAt: time().optional(),
  url: z.string().nullable().optional(),
  revoked: z.number().int().optional(),
});
