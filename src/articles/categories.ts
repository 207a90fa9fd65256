/** contentType -> content API category (decisions.md). Any other contentType is refused on input. */
export const CONTENT_TYPES = {
  BLOG_POST: { title: 'Blog', slug: 'blog' },
  GUIDE: { title: 'Guides', slug: 'guides' },
  HOW_TO: { title: 'How-to', slug: 'how-to' },
  LISTICLE: { title: 'Lists', slug: 'lists' },
  COMPARISON: { title: 'Comparisons', slug: 'comparisons' },
} as const;

export type ContentType = keyof typeof CONTENT_TYPES;
export const CONTENT_TYPE_NAMES = Object.keys(CONTENT_TYPES) as ContentType[];

export const categoryOf = (type: ContentType): { title: string; slug: string } => CONTENT_TYPES[type];
