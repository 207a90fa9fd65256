import type { ContentType } from './categories.js';
import type { ArticleStatus } from './inputs.js';

export interface Article {
  id: string;
  workspaceId: string;
  title: string;
  slug: string;
  contentType: ContentType;
  bodyMarkdown: string;
  metaTitle: string | null;
  metaDescription: string | null;
  focusKeyword: string | null;
  secondaryKeywords: string[];
  featuredImageUrl: string | null;
  imageAlt: string | null;
  author: string | null;
  targetLength: number;
  seoScore: number | null;
  status: ArticleStatus;
  scheduledAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The date the post had on the site it was imported from: its first-publish time here. */
  importedPublishedAt: string | null;
  /** Its lastmod there: the update time of its first publish here. */
  importedUpdatedAt: string | null;
  /** The first publish ever (the imported date for imports): kept through unpublish and republish. */
  firstPublishedAt: string | null;
  /** Bumped by every edit; `publishedRevision` is the one last published (null: never published). */
  revision: number;
  publishedRevision: number | null;
  /** The revision the stored seoScore was computed on (null: never audited). */
  auditedRevision: number | null;
  /** Why the last scheduled publish failed (cleared by a publish or a new schedule). */
  publishError: PublishError | null;
}

/** A failed scheduled publish, kept on the article and retried at `retryAt`. */
export interface PublishError {
  message: string;
  at: string;
  failures: number;
  retryAt: string | null;
}
