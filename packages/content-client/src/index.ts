export { BlogClient, ContentApiError, type ArticleList, type ArticleOptions, type BlogClientOptions, type FetchLike, type ListOptions } from './blog-client.js';
export type { Article, ArticleIndex, Blog, Category, ContentErrorBody, Page, RelatedPost, Sitemap, Tag, Term, TermCount } from './types.js';
