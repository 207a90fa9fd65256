/**
 * The content API's wire shapes (ArticleIndex, Article, Page, Sitemap): string ids, `id` on
 * category and tags, `deleted`/`published` on Article, UTC ISO dates. The daemon's test suite
 * holds them equal to the OpenAPI document's schemas, so client and server cannot drift.
 */
export interface Term {
  id: string;
  title: string;
  slug: string;
}

export type Category = Term;
export type Tag = Term;

export interface ArticleIndex {
  id: string;
  slug: string;
  title: string;
  headline: string;
  metaDescription: string;
  image: string | null;
  readingTime: number;
  category: Category;
  tags: Tag[];
  publishedAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface RelatedPost {
  id: string;
  headline: string;
  slug: string;
}

export interface Article extends ArticleIndex {
  html: string;
  markdown: string;
  metaTitle: string;
  metaKeywords: string;
  focusKeyword: string | null;
  imageAlt: string | null;
  author: string | null;
  wordCount: number | null;
  url: string | null;
  outline: string[];
  schemaJsonLd: string | null;
  deleted: false;
  published: true;
  relatedPosts: RelatedPost[];
}

export interface Page {
  articles: ArticleIndex[];
  total: number;
  page: number;
  limit: number;
}

export interface TermCount {
  title: string;
  slug: string;
  count: number;
}

export interface Sitemap {
  articles: Array<{ slug: string; lastmod: string; url: string | null }>;
  categories: Array<{ slug: string; lastmod: string }>;
  tags: Array<{ slug: string; lastmod: string }>;
}

export interface ContentErrorBody {
  error: { code: string; message: string; retryAfterSeconds?: number; parameter?: string };
}

/**
 * The shapes headless-blog templates were typed against (`Blog.IArticle` ...), as BlogClient
 * returns them: the wire shapes with `image` always a string (`''` for an article without a
 * featured image), so template code written for those types compiles unchanged.
 */
export declare namespace Blog {
  type ICategory = Category;
  type ITag = Tag;
  type IRelatedPost = RelatedPost;
  type IArticleIndex = Omit<ArticleIndex, 'image'> & { image: string };
  type IArticle = Omit<Article, 'image'> & { image: string };
}
