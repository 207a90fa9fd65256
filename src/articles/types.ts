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
}
