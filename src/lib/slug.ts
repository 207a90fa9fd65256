/**
 * URL slug from a title: lower case, accents folded, non-alphanumerics to single dashes.
 * Letters outside Latin (e.g. Cyrillic, CJK) are kept, since browsers send them URL-encoded.
 */
export function slugify(input: string): string {
  return input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/g, '');
}

/** A slug is valid when slugify leaves it unchanged. */
export const isValidSlug = (slug: string): boolean => slug.length > 0 && slugify(slug) === slug;
