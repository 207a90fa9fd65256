import type { Article } from '../articles/types.js';
import type { Publication } from '../connectors/publications.js';
import { withoutLeadingH1 } from '../lib/markdown.js';
import type { Workspace } from '../workspaces/types.js';

export type WebhookEventName = 'article.published' | 'article.updated' | 'article.unpublished' | 'article.deleted' | 'test';

/** What an outbox row keeps at enqueue time, so every attempt can build its payload even after the article is deleted. */
export interface EventSnapshot {
  workspace: { id: string; name: string; websiteUrl: string };
  article: Pick<Article, 'id' | 'title' | 'metaTitle' | 'metaDescription' | 'focusKeyword' | 'featuredImageUrl' | 'targetLength' | 'seoScore'> & {
    slug: string | null;
    contentType: string;
    bodyMarkdown: string | null;
    /** The body as the publish rendered it, and its word count; absent on events written without them (older releases' rows too), which the attempt renders. */
    bodyHtml?: string | null;
    wordCount?: number;
  };
  publication: { publishedAt: string | null; publishedUrl: string | null };
}

export interface WebhookPayload {
  event: WebhookEventName;
  eventId: string;
  deliveredAt: string;
  deliveryId: string;
  workspace: EventSnapshot['workspace'];
  article: Omit<EventSnapshot['article'], 'bodyMarkdown'> & {
    wordCount: number;
    publishedAt: string | null;
    publishedUrl: string | null;
    body: { markdown: string | null; html: string | null };
  };
}

/** `rendered`: the body as the publish rendered it (renderBody of content/snapshot.ts), so no attempt renders it again. */
export function snapshotOf(ws: Workspace, article: Article, publication: Publication | null, rendered?: { html: string; words: number }): EventSnapshot {
  return {
    workspace: { id: ws.id, name: ws.name, websiteUrl: ws.websiteUrl },
    article: {
      id: article.id,
      title: article.title,
      slug: article.slug,
      contentType: article.contentType,
      metaTitle: article.metaTitle,
      metaDescription: article.metaDescription,
      focusKeyword: article.focusKeyword,
      featuredImageUrl: article.featuredImageUrl,
      targetLength: article.targetLength,
      seoScore: article.seoScore,
      // The H1 is the title (decisions.md), so the body starts after it, as in the content API.
      bodyMarkdown: withoutLeadingH1(article.bodyMarkdown),
      ...(rendered ? { bodyHtml: rendered.html, wordCount: rendered.words } : {}),
    },
    publication: { publishedAt: publication?.firstPublishedAt ?? null, publishedUrl: publication?.publishedUrl ?? null },
  };
}

/** The payload of one attempt: the event's html, or when it has none, `rendered` (null: it could not be rendered). */
export function buildPayload(args: { event: WebhookEventName; eventId: string; deliveryId: string; deliveredAt: string; snapshot: EventSnapshot; publishedUrl?: string | null; rendered?: { html: string; words: number } | null }): WebhookPayload {
  const { bodyMarkdown, bodyHtml, wordCount: words, ...article } = args.snapshot.article;
  return {
    event: args.event,
    eventId: args.eventId,
    deliveredAt: args.deliveredAt,
    deliveryId: args.deliveryId,
    workspace: args.snapshot.workspace,
    article: {
      ...article,
      wordCount: words ?? args.rendered?.words ?? 0,
      publishedAt: args.snapshot.publication.publishedAt,
      publishedUrl: args.publishedUrl !== undefined ? args.publishedUrl : args.snapshot.publication.publishedUrl,
      body: { markdown: bodyMarkdown, html: bodyMarkdown === null ? null : (bodyHtml ?? args.rendered?.html ?? null) },
    },
  };
}

/** The `article` of a `test` event: a fixed sample, so receivers can exercise their whole path. */
export function sampleSnapshot(ws: Workspace, now: string): EventSnapshot {
  return {
    workspace: { id: ws.id, name: ws.name, websiteUrl: ws.websiteUrl },
    article: {
      id: 'art_sample',
      title: 'Sample article from svc',
      slug: 'sample-article-from-svc',
      contentType: 'BLOG_POST',
      metaTitle: 'Sample article from svc',
      metaDescription: 'A sample article sent by svc webhook test. It is not stored anywhere.',
      focusKeyword: 'sample article',
      featuredImageUrl: null,
      targetLength: 1200,
      seoScore: 80,
      bodyMarkdown: '## What this is\n\nA **test** delivery from svc. Your receiver should answer 2xx.\n\n## Next steps\n\n- Verify the signature\n- Upsert by `article.id`\n',
    },
    publication: { publishedAt: now, publishedUrl: null },
  };
}
