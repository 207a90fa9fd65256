import type { ArticleIndex } from './schemas.js';

/** What the Article node needs besides the index fields. */
export interface JsonLdInput {
  index: ArticleIndex;
  author: string | null;
  url: string | null;
  faq: Array<{ question: string; answer: string }>;
}

/** Article (and FAQPage) JSON-LD (decisions.md), as the string the content API serves. */
export function buildJsonLd({ index, author, url, faq }: JsonLdInput): string {
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
  const doc = faq.length
    ? {
        '@context': 'https://schema.org',
        '@graph': [
          node,
          { '@type': 'FAQPage', mainEntity: faq.map((f) => ({ '@type': 'Question', name: f.question, acceptedAnswer: { '@type': 'Answer', text: f.answer } })) },
        ],
      }
    : { '@context': 'https://schema.org', ...node };
  return serialize(doc);
}

/** The same JSON-LD with the Article's page (mainEntityOfPage) at another URL, or none. */
export function jsonLdWithPageUrl(jsonLd: string, url: string | null): string {
  const doc = JSON.parse(jsonLd) as Record<string, unknown> & { '@graph'?: Array<Record<string, unknown>> };
  const node = doc['@graph']?.[0] ?? doc;
  if (url) node.mainEntityOfPage = pageOf(url);
  else delete node.mainEntityOfPage;
  return serialize(doc);
}

const pageOf = (url: string) => ({ '@type': 'WebPage', '@id': url });

/** `<` escaped, so the string can go straight into a script element. */
const serialize = (doc: unknown): string => JSON.stringify(doc).replace(/</g, '\\u003c');
