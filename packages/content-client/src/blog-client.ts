import type { Article, ArticleIndex, Blog, ContentErrorBody, Page, Sitemap, TermCount } from './types.js';

/** What BlogClient needs of fetch: the global one, Next.js' and undici's all fit. */
export type FetchLike = (url: string, init: { headers: Record<string, string> }) => Promise<{ status: number; ok: boolean; json(): Promise<unknown> }>;

export interface BlogClientOptions {
  /** The svc daemon's base address, e.g. `https://svc.example.com`; default: the `SVC_URL` environment variable. */
  baseUrl?: string;
  /** A fetch implementation; default: the global fetch. */
  fetch?: FetchLike;
}

export interface ListOptions {
  /** Full-text search over title, description, body and tags (the content API's `q`). */
  q?: string;
}

export interface ArticleOptions {
  /** A preview token (`svc articles preview`): the article's current draft instead of the published copy. */
  preview?: string;
}

export type ArticleList = { articles: Blog.IArticleIndex[]; total: number };

/** An error answer of the content API (401 invalid_key, 429 rate_limited, 400 invalid_parameter, 503 unavailable ...). */
export class ContentApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfterSeconds?: number;

  constructor(status: number, body: Partial<ContentErrorBody> | null) {
    super(body?.error?.message ?? `The content API answered ${status}`);
    this.name = 'ContentApiError';
    this.status = status;
    this.code = body?.error?.code ?? 'http_error';
    this.retryAfterSeconds = body?.error?.retryAfterSeconds;
  }
}

const env = (name: string): string | undefined => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

/**
 * A slug as the API wants it: decoded once when it arrives percent-encoded (Next.js hands pages
 * their params that way), then encoded once. Slugs never contain `%` themselves, so decoding a
 * slug that was not encoded changes nothing.
 */
const slugPart = (slug: string): string => encodeURIComponent(decodeOnce(slug));

function decodeOnce(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // not percent-encoding after all: sent as given, and the API answers for it
  }
}

function queryString(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

const withImage = <T extends { image: string | null }>(a: T): Omit<T, 'image'> & { image: string } => ({ ...a, image: a.image ?? '' });

/**
 * The svc content API for a blog site: the constructor and the four methods headless-blog
 * templates call (`new BlogClient(key)`, getArticles, getCategoryArticles, getTagArticles,
 * getArticle), plus search, previews, categories, tags and the sitemap. Keep the key on the
 * server side (server components, route handlers, getServerSideProps), never in a browser bundle.
 */
export class BlogClient {
  private readonly root: string;
  private readonly key: string;
  private readonly fetcher: FetchLike;

  constructor(key: string, options: BlogClientOptions = {}) {
    if (!key) throw new Error('svc-content-client: a blog key must be given (svc blog-key generate prints one)');
    const base = options.baseUrl ?? env('SVC_URL');
    if (!base) throw new Error('svc-content-client: no base URL: pass { baseUrl } or set the SVC_URL environment variable (e.g. https://svc.example.com)');
    const fetcher = options.fetch ?? (globalThis as { fetch?: FetchLike }).fetch;
    if (!fetcher) throw new Error('svc-content-client: no fetch: use Node.js 18 or later, or pass { fetch }');
    this.key = key;
    this.root = `${base.replace(/\/+$/, '')}/api/v1/content`;
    this.fetcher = fetcher;
  }

  /** A page of articles, newest first; `page` is zero-based. */
  async getArticles(page: number, limit = 10, options: ListOptions = {}): Promise<ArticleList> {
    return this.list({ page, limit, q: options.q });
  }

  async getCategoryArticles(slug: string, page: number, limit = 10, options: ListOptions = {}): Promise<ArticleList> {
    return this.list({ category: decodeOnce(slug), page, limit, q: options.q });
  }

  async getTagArticles(slug: string, page: number, limit = 10, options: ListOptions = {}): Promise<ArticleList> {
    return this.list({ tag: decodeOnce(slug), page, limit, q: options.q });
  }

  /** Search results, best match first (the same as getArticles with `{ q }`). */
  async search(q: string, page = 0, limit = 10): Promise<ArticleList> {
    return this.list({ q, page, limit });
  }

  /** The article, or null when no published article has this slug (or the preview token is not valid for it). */
  async getArticle(slug: string, options: ArticleOptions = {}): Promise<Blog.IArticle | null> {
    const article = await this.get<Article>(`/articles/${slugPart(slug)}${queryString({ preview: options.preview })}`, true);
    return article && withImage(article);
  }

  async getCategories(): Promise<TermCount[]> {
    return (await this.get<TermCount[]>('/categories'))!;
  }

  async getTags(): Promise<TermCount[]> {
    return (await this.get<TermCount[]>('/tags'))!;
  }

  async getSitemap(): Promise<Sitemap> {
    return (await this.get<Sitemap>('/sitemap'))!;
  }

  private async list(params: { page: number; limit: number; category?: string; tag?: string; q?: string }): Promise<ArticleList> {
    const { page, limit, ...rest } = params;
    const found = (await this.get<Page>(`/articles${queryString({ ...rest, page, limit })}`))!;
    return { articles: found.articles.map((a: ArticleIndex) => withImage(a)), total: found.total };
  }

  private async get<T>(path: string, nullOn404 = false): Promise<T | null> {
    const res = await this.fetcher(`${this.root}${path}`, { headers: { Authorization: `Bearer ${this.key}`, Accept: 'application/json' } });
    if (res.status === 404 && nullOn404) return null;
    const body = (await res.json().catch(() => null)) as { data: T } | ContentErrorBody | null;
    if (!res.ok || !body || typeof body !== 'object' || !('data' in body)) throw new ContentApiError(res.status, body && typeof body === 'object' ? (body as ContentErrorBody) : null);
    return body.data;
  }
}
