import { z } from 'zod';
import type { Article } from '../../articles/types.js';
import { invalidInput } from '../../errors.js';
import { describePublishError } from '../../publishing/failures.js';
import { type Descriptions, toolInput } from '../tool-input.js';

/** Input fields naming one article: by id or by slug (MCP's own: the CLI takes one positional). */
export const articleRef = {
  id: z.string().min(1).max(200).optional(),
  slug: z.string().min(1).max(200).optional(),
};

export const ARTICLE_REF: Descriptions<typeof articleRef> = {
  id: 'The article id, e.g. "art_4fZk8QmT2bX9cL1p". Give either id or slug.',
  slug: 'The article slug, e.g. "how-to-brew-coffee". Give either id or slug.',
};

/** The input of tools that take one article and nothing else. */
export const articleRefInput = toolInput('arguments', articleRef, ARTICLE_REF);

export function refOf(args: { id?: string; slug?: string }): string {
  const ref = args.id?.trim() || args.slug?.trim();
  if (!ref) throw invalidInput('Say which article: pass its id or its slug (list_articles shows both)');
  return ref;
}

/** The short form of an article used in lists and results. */
export const summary = (a: Article) => ({
  id: a.id,
  slug: a.slug,
  title: a.title,
  status: a.status,
  contentType: a.contentType,
  focusKeyword: a.focusKeyword,
  seoScore: a.seoScore,
  scheduledAt: a.scheduledAt,
  publishError: describePublishError(a),
  updatedAt: a.updatedAt,
});

export const summaryLine = (a: Article): string =>
  `- ${a.title} [${a.status}${a.publishError ? ', publish failed' : ''}] slug: ${a.slug}, id: ${a.id}${a.seoScore === null ? '' : `, SEO score ${a.seoScore}`}`;

/** Everything an agent may edit, plus the read-only fields. */
export const detail = (a: Article) => ({
  ...summary(a),
  bodyMarkdown: a.bodyMarkdown,
  metaTitle: a.metaTitle,
  metaDescription: a.metaDescription,
  secondaryKeywords: a.secondaryKeywords,
  featuredImageUrl: a.featuredImageUrl,
  imageAlt: a.imageAlt,
  author: a.author,
  targetLength: a.targetLength,
  createdAt: a.createdAt,
});
