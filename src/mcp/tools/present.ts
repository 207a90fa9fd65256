import type { Article } from '../../articles/types.js';
import { invalidInput } from '../../errors.js';
import { someText } from '../../lib/validate.js';
import { getArticle } from '../../articles/service.js';
import { describePublishError } from '../../publishing/failures.js';
import { type PublicationState, publicationStates } from '../../publishing/state.js';
import type { ToolEnv } from '../result.js';
import { type Descriptions, toolInput } from '../tool-input.js';

/** Input fields naming one article: by id or by slug (MCP's own: the CLI takes one positional). */
export const articleRef = {
  id: someText(200).optional(),
  slug: someText(200).optional(),
};

export const ARTICLE_REF: Descriptions<typeof articleRef> = {
  id: 'The article id, e.g. "art_0mx3eik7e4fZk8QmT2bX9". Give either id or slug.',
  slug: 'The article slug, e.g. "how-to-brew-coffee". Give either id or slug.',
};

/** The input of tools that take one article and nothing else. */
export const articleRefInput = toolInput('arguments', articleRef, ARTICLE_REF);

/**
 * The article the arguments name, as a ref for the services: the id, or the slug. Both given
 * must name the same article (a conflict is refused, never settled by one of them silently).
 */
export async function refOf(env: ToolEnv, args: { id?: string; slug?: string }): Promise<string> {
  const id = args.id?.trim();
  const slug = args.slug?.trim();
  if (!id && !slug) throw invalidInput('Say which article: pass its id or its slug (list_articles shows both)');
  if (!id || !slug) return (id || slug)!;
  const a = await getArticle(env.app, env.workspace, id);
  if (a.slug.normalize('NFC').toLowerCase() !== slug.normalize('NFC').toLowerCase()) {
    throw invalidInput(`id and slug name different articles: ${id} has the slug "${a.slug}", not "${slug}". Give only one of them (to change a slug, use update_article's newSlug)`);
  }
  return id;
}

/** The short form of an article used in lists and results, with the truth about its publication. */
export const summary = (a: Article, state: PublicationState) => ({
  id: a.id,
  slug: a.slug,
  title: a.title,
  status: a.status,
  contentType: a.contentType,
  focusKeyword: a.focusKeyword,
  seoScore: a.seoScore,
  /** The body or fields changed since the audit that gave seoScore: audit again for a true score. */
  seoScoreStale: isScoreStale(a),
  scheduledAt: a.scheduledAt,
  publishError: describePublishError(a),
  updatedAt: a.updatedAt,
  ...state,
});

/** The summaries of these articles (their publication states read together). */
export async function summaries(env: ToolEnv, list: Article[]) {
  const states = await publicationStates(env.app, env.workspace, list);
  return list.map((a) => summary(a, states.get(a.id)!));
}

export const summaryOf = async (env: ToolEnv, a: Article) => (await summaries(env, [a]))[0];

export const summaryLine = (a: Article, state?: PublicationState): string =>
  `- ${a.title} [${a.status}${a.publishError ? ', publish failed' : ''}${state ? flags(state) : ''}${a.scheduledAt && a.status === 'published' ? `, republish scheduled ${a.scheduledAt}` : ''}] slug: ${a.slug}, id: ${a.id}${a.seoScore === null ? '' : `, SEO score ${a.seoScore}${isScoreStale(a) ? ' (stale: edited since the audit)' : ''}`}`;

export const isScoreStale = (a: Article): boolean => a.seoScore !== null && a.auditedRevision !== a.revision;

/** What a list line adds about the publication: live or not, unpublished edits, a destination in trouble. */
function flags(s: PublicationState): string {
  const troubled = s.destinations.filter((d) => d.state !== 'delivered').map((d) => `${d.kind} ${d.state}`);
  return [s.live ? ', live' : '', s.hasUnpublishedChanges ? ', edited since published' : '', ...troubled.map((t) => `, ${t}`)].join('');
}

/** Everything an agent may edit, plus the read-only fields. */
export const detail = (a: Article, state: PublicationState) => ({
  ...summary(a, state),
  /** The body itself is in the text, once: here only its size. */
  bodyCharacters: [...a.bodyMarkdown].length,
  metaTitle: a.metaTitle,
  metaDescription: a.metaDescription,
  secondaryKeywords: a.secondaryKeywords,
  featuredImageUrl: a.featuredImageUrl,
  imageAlt: a.imageAlt,
  author: a.author,
  targetLength: a.targetLength,
  createdAt: a.createdAt,
});
