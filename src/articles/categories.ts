import { slugify } from '../lib/slug.js';

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

// Names that mean one of the content types, compared by slug ("How-to", "how to" and "HOW_TO"
// all match): the type's own name, its category's title in singular and plural, and the words
// blogs use for their categories (an imported `categories: [Guides]`, `contentType: Guides`).
const ALIASES: Record<string, ContentType> = {
  blog: 'BLOG_POST',
  'blog-post': 'BLOG_POST',
  'blog-posts': 'BLOG_POST',
  guide: 'GUIDE',
  guides: 'GUIDE',
  'how-to': 'HOW_TO',
  'how-tos': 'HOW_TO',
  howto: 'HOW_TO',
  howtos: 'HOW_TO',
  list: 'LISTICLE',
  lists: 'LISTICLE',
  listicle: 'LISTICLE',
  listicles: 'LISTICLE',
  comparison: 'COMPARISON',
  comparisons: 'COMPARISON',
};

/** The content type a name stands for (`GUIDE`, `Guides`, `guide`, `How to`), if any. */
export const contentTypeNamed = (name: string): ContentType | undefined => ALIASES[slugify(name)];

