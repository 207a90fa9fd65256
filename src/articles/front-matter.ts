import YAML from 'yaml';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { humanErrors } from '../lib/validate.js';
import type { ArticleCreateInput } from './inputs.js';

// Front matter keys accepted by `svc articles import`, as an author would write them.
const frontMatter = z
  .object({
    title: z.string().optional(),
    slug: z.string().optional(),
    contentType: z.string().optional(),
    metaTitle: z.string().optional(),
    metaDescription: z.string().optional(),
    focusKeyword: z.string().optional(),
    keywords: z.union([z.array(z.string()), z.string()]).optional(),
    image: z.string().optional(),
    imageAlt: z.string().optional(),
    author: z.string().optional(),
    targetLength: z.number().int().optional(),
  })
  .strict();

/** Split `---\nYAML\n---\nmarkdown` and map the front matter onto article input. */
export function parseMarkdownFile(text: string, fileName: string): ArticleCreateInput {
  const src = text.replace(/^\uFEFF/, '');
  let data: unknown = {};
  let body = src;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (match) {
    try {
      data = YAML.parse(match[1]) ?? {};
    } catch (err) {
      throw new AppError('invalid_front_matter', 400, `${fileName}: the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    body = src.slice(match[0].length);
  } else if (src.startsWith('---')) {
    throw new AppError('invalid_front_matter', 400, `${fileName}: the front matter starts with --- but has no closing --- line`);
  }
  const parsed = frontMatter.safeParse(data, { errorMap: humanErrors });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys' ? `unknown key${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}` : `${i.path.join('.') || 'front matter'}: ${i.message}`,
    );
    throw new AppError('invalid_front_matter', 400, `${fileName}: invalid front matter: ${problems.join('; ')}`, {
      hint: 'Allowed keys: title, slug, contentType, metaTitle, metaDescription, focusKeyword, keywords, image, imageAlt, author, targetLength',
    });
  }
  const fm = parsed.data;
  return {
    title: fm.title,
    slug: fm.slug,
    contentType: fm.contentType,
    metaTitle: fm.metaTitle,
    metaDescription: fm.metaDescription,
    focusKeyword: fm.focusKeyword,
    secondaryKeywords: fm.keywords,
    featuredImageUrl: fm.image,
    imageAlt: fm.imageAlt,
    author: fm.author,
    targetLength: fm.targetLength,
    bodyMarkdown: body,
  };
}
