/**
 * Typed client of the svc content API, for blog templates. Same four methods and return
 * shapes as the headless blog client those templates were written for, plus categories,
 * tags and the sitemap, so a template switches one import. Built on fetch; imports nothing
 * from the server. Keep the key on the server side (getServerSideProps, route handlers,
 * server components), never in a browser bundle.
 */
import type { Article, ArticleIndex, ContentErrorBody, Page, Sitemap, TermCount } from './types.js';

export type { Article, ArticleIndex, Category, ContentErrorBody, Page, RelatedPost, Sitemap, Tag, Term, TermCount } from './types.js';

export interface ContentClientOptions {
  /** The svc base address, e.g. https://svc.example.com (the /api/v1/content path is added). */
  baseUrl: string;
  /** The workspace's blog key (`svc_blog_...`). */
  key: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

/** An error answer of the content API (401 invalid_key, 429 rate_limited, 400 invalid_parameter ...). */
export class ContentApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfterSeconds?: number;

  constructor(status: number, body: Partial<ContentErrorBody> | null) {
    super(body?.error?.message ?? `Content API answered ${status}`);
    this.name = 'ContentApiError';
    this.status = status;
    this.code = body?.error?.code ?? 'http_error';
    this.retryAfterSeconds = body?.error?.retryAfterSeconds;
  }
}

export interface ContentClient {
  getArticles(page?: number, limit?: number): Promise<{ articles: ArticleIndex[]; total: number }>;
  getCategoryArticles(slug: string, page?: number, limit?: number): Promise<{ articles: ArticleIndex[]; total: number }>;
  getTagArticles(slug: string, page?: number, limit?: number): Promise<{ articles: ArticleIndex[]; total: number }>;
  /** The article, or null when the slug does not exist (404). */
  getArticle(slug: string): Promise<Article | null>;
  getCategories(): Promise<TermCount[]>;
  getTags(): Promise<TermCount[]>;
  getSitemap(): Promise<Sitemap>;
}

export function createContentClient(options: ContentClientOptions): ContentClient {
  const root = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/content`;
  const doFetch = options.fetch ?? fetch;

  async function get<T>(path: string, allow404 = false): Promise<T | null> {
    const res = await doFetch(`${root}${path}`, { headers: { Authorization: `Bearer ${options.key}`, Accept: 'application/json' } });
    if (res.status === 404 && allow404) return null;
    const body = (await res.json().catch(() => null)) as { data: T } | ContentErrorBody | null;
    if (!res.ok || !body || !('data' in body)) throw new ContentApiError(res.status, body as ContentErrorBody | null);
    return body.data;
  }

  const list = async (query: Record<string, string | number>) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const page = (await get<Page>(`/articles?${qs}`))!;
    return { articles: page.articles, total: page.total };
  };

  return {
    getArticles: (page = 0, limit = 10) => list({ page, limit }),
    getCategoryArticles: (slug, page = 0, limit = 10) => list({ category: slug, page, limit }),
    getTagArticles: (slug, page = 0, limit = 10) => list({ tag: slug, page, limit }),
    getArticle: (slug) => get<Article>(`/articles/${encodeURIComponent(slug)}`, true),
    getCategories: async () => (await get<TermCount[]>('/categories'))!,
    getTags: async () => (await get<TermCount[]>('/tags'))!,
    getSitemap: async () => (await get<Sitemap>('/sitemap'))!,
  };
}
