import type { Workspace } from '../workspaces/types.js';
import type { ArticleIndex } from './schemas.js';
import type { FaqPair } from '../lib/markdown.js';

export type UrlSettings = Pick<Workspace, 'siteUrl' | 'websiteUrl' | 'contentPath'>;

/**
 * siteUrl (or websiteUrl) + contentPath + `/`, slashes normalised, as a valid absolute URL (an
 * international host in ASCII, the path percent-encoded); null without a usable URL.
 */
export function urlPrefix(ws: UrlSettings): string | null {
  const raw = (ws.siteUrl || ws.websiteUrl || '').trim();
  if (!raw || !URL.canParse(raw)) return null;
  const base = new URL(raw);
  const path = `${base.pathname}/${ws.contentPath ?? ''}`.split('/').filter(Boolean).join('/');
  return `${base.origin}/${path ? `${path}/` : ''}`;
}

const urlAt = (prefix: string | null, slug: string) => (prefix === null ? null : prefix + encodeURIComponent(slug));

export const articleUrl = (ws: UrlSettings, slug: string): string | null => urlAt(urlPrefix(ws), slug);

/** The url the settings give now (and the JSON-LD page id), so a new site URL shows without republishing. */
export function articleJsonWithUrl(json: string, slug: string, prefix: string | null): { json: string; changed: boolean } {
  const url = urlAt(prefix, slug);
  // Keys are the only unescaped quotes in the JSON, so this matches the top-level url field only.
  if (json.includes(`"url":${JSON.stringify(url)}`)) return { json, changed: false };
  const article = JSON.parse(json) as { url: string | null; schemaJsonLd: string | null };
  article.url = url;
  if (article.schemaJsonLd) {
    // The Article's page (mainEntityOfPage) at the new URL, or none.
    const doc = JSON.parse(article.schemaJsonLd) as Record<string, unknown> & { '@graph'?: Array<Record<string, unknown>> };
    const node = doc['@graph']?.[0] ?? doc;
    if (url) node.mainEntityOfPage = pageOf(url);
    else delete node.mainEntityOfPage;
    article.schemaJsonLd = serialize(doc);
  }
  return { json: JSON.stringify(article), changed: true };
}

// A stored sitemap entry: {"slug":"...","lastmod":"...","url":"..." or null}. Slugs and dates
// never hold a quote or a backslash, so the entries can be read with a pattern.
const ENTRY = /\{"slug":"([^"]*)","lastmod":"([^"]*)","url":(?:"[^"]*"|null)\}/g;

/** Joined sitemap entries with the urls the settings give now; untouched (one scan) when they already match. */
export function sitemapEntriesWithUrls(entries: string, prefix: string | null): { entries: string; changed: boolean } {
  // Fresh means the prefix and then only the slug (encoded: no slash) up to the entry's end; a
  // prefix test alone would take https://a.com/blog/x for fresh once the prefix is https://a.com/.
  const stale = prefix === null ? /"url":"/ : new RegExp(`"url":(?!"${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^"/]*"\\})`);
  if (!stale.test(entries)) return { entries, changed: false };
  return { entries: entries.replace(ENTRY, (_, slug: string, lastmod: string) => `{"slug":"${slug}","lastmod":"${lastmod}","url":${JSON.stringify(urlAt(prefix, slug))}}`), changed: true };
}

/** Article (and FAQPage) JSON-LD (decisions.md). */
export function buildJsonLd({ index, author, url, faq }: { index: ArticleIndex; author: string | null; url: string | null; faq: FaqPair[] }): string {
  const node: Record<string, unknown> = {
    '@type': 'Article',
    headline: index.headline,
    description: index.metaDescription,
    ...(index.image ? { image: index.image } : {}),
    datePublished: index.publishedAt,
    dateModified: index.updatedAt,
    ...(author ? { author: { '@type': 'Person', name: author } } : {}),
    ...(url ? { mainEntityOfPage: pageOf(url) } : {}),
  };
  const faqPage = { '@type': 'FAQPage', mainEntity: faq.map((f) => ({ '@type': 'Question', name: f.question, acceptedAnswer: { '@type': 'Answer', text: f.answer } })) };
  return serialize({ '@context': 'https://schema.org', ...(faq.length ? { '@graph': [node, faqPage] } : node) });
}

const pageOf = (url: string) => ({ '@type': 'WebPage', '@id': url });

/** `<` escaped, so the string can go straight into a script element. */
const serialize = (doc: unknown): string => JSON.stringify(doc).replace(/</g, '\\u003c');
