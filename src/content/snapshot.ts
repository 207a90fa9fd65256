import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { categoryOf } from '../articles/categories.js';
import type { Article as DomainArticle } from '../articles/types.js';
import type { Article, ArticleIndex, Term as Tag } from './schemas.js';
import { slugify } from '../lib/slug.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from '../connectors/publications.js';
import { articleUrl, buildJsonLd } from './article-url.js';
import type { RenderedBody } from '../lib/markdown.js';

/** An Article as stored at publish time: everything but relatedPosts, which depend on other posts. */
export type StoredArticle = Omit<Article, 'relatedPosts'>;

export interface Snapshot {
  index: ArticleIndex;
  article: StoredArticle;
  /** `{"slug":..,"lastmod":..,"url":..}`: the article's sitemap entry, serialized once. */
  sitemapEntry: string;
  searchTerms: string;
}

export function buildSnapshot(ws: Workspace, article: DomainArticle, publication: Publication, rendered: RenderedBody): Snapshot {
  const category = categoryOf(article.contentType);
  // Focus keyword then secondary keywords, de-duplicated by slug (decisions.md).
  const bySlug = new Map<string, Tag>();
  for (const keyword of [article.focusKeyword, ...article.secondaryKeywords]) {
    const title = keyword?.trim();
    const slug = title ? slugify(title) : '';
    if (title && slug && !bySlug.has(slug)) bySlug.set(slug, { id: slug, title, slug });
  }
  const tags = [...bySlug.values()];
  const url = articleUrl(ws, article.slug);
  const index: ArticleIndex = {
    id: article.id,
    slug: article.slug,
    title: article.title,
    headline: article.title,
    metaDescription: article.metaDescription ?? rendered.excerpt,
    image: article.featuredImageUrl,
    readingTime: Math.max(1, Math.ceil(rendered.words / 200)),
    category: { id: category.slug, title: category.title, slug: category.slug },
    tags,
    publishedAt: utc(publication.firstPublishedAt),
    createdAt: utc(article.createdAt),
    updatedAt: utc(publication.updatedAt),
  };
  const stored: StoredArticle = {
    ...index,
    html: rendered.html,
    markdown: rendered.markdown,
    metaTitle: article.metaTitle ?? article.title,
    metaKeywords: tags.map((t) => t.title).join(', '),
    focusKeyword: article.focusKeyword,
    imageAlt: article.imageAlt,
    author: article.author,
    wordCount: rendered.words,
    url,
    outline: rendered.outline,
    schemaJsonLd: buildJsonLd({ index, author: article.author, url, faq: rendered.faq }),
    deleted: false,
    published: true,
  };
  return { index, article: stored, sitemapEntry: JSON.stringify({ slug: article.slug, lastmod: index.updatedAt, url }), searchTerms: rendered.searchTerms };
}

const utc = (value: string): string => new Date(value).toISOString();

/** content_articles.article: the fields index_json lacks, deflated (html and markdown share their text: 4.6 KB -> 1.5 KB). */
export const packArticle = (snap: Snapshot): Buffer =>
  deflateRawSync(JSON.stringify(Object.fromEntries(Object.entries(snap.article).filter(([key]) => !(key in snap.index)))), { level: 1 });

/** Of the article only what search indexes, the rest packed: made in a render worker, html and markdown need not travel back. */
export interface PackedSnapshot extends Omit<Snapshot, 'article'> {
  article: Pick<StoredArticle, 'title' | 'outline' | 'metaDescription'>;
  indexJson: string;
  packed: Buffer;
}

export const packSnapshot = (snap: Snapshot): PackedSnapshot => ({
  ...snap,
  article: { title: snap.article.title, outline: snap.article.outline, metaDescription: snap.article.metaDescription },
  indexJson: JSON.stringify(snap.index),
  packed: packArticle(snap),
});

/** The article's JSON (index fields first, as built) from its index entry and packArticle's bytes. */
export const articleJson = (indexJson: string, packed: Buffer): string => `${indexJson.slice(0, -1)},${inflateRawSync(packed).toString().slice(1)}`;
