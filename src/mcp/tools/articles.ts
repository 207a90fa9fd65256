import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CONTENT_TYPE_NAMES } from '../../articles/categories.js';
import {
  type ArticleCreateInput,
  type ArticleListInput,
  type ArticleUpdateInput,
  articleCreateInput,
  articleListInput,
  articleUpdateInput,
  KEYWORD_MAX,
  KEYWORDS_MAX,
  TEXT_MAX,
} from '../../articles/inputs.js';
import { SLUG_INPUT_PATTERN, SLUG_MAX } from '../../lib/slug.js';
import { rivalWarning } from '../../articles/keyword-family.js';
import { focusKeywordRivals, getArticle, listArticles, updateArticle } from '../../articles/service.js';
import type { Article } from '../../articles/types.js';
import { createArticle } from '../../publishing/create.js';
import { searchPublishedArticles } from '../../content/search.js';
import { QUERY_MAX_LENGTH, searchQueryInput } from '../../content/search-terms.js';
import { invalidInput } from '../../errors.js';
import { describePublishError } from '../../publishing/failures.js';
import { describeState, publicationState } from '../../publishing/state.js';
import { type ToolEnv, gated, text } from '../result.js';
import { type Descriptions, type Shown, toolInput } from '../tool-input.js';
import { OUTPUT } from './output.js';
import { ARTICLE_REF, articleRef, detail, isScoreStale, refOf, summaries, summaryLine, summaryOf } from './present.js';

/** For the model, one line per field of the domain's article input (articles/inputs.ts). */
const FIELDS: Descriptions<typeof articleCreateInput.shape> = {
  title: 'The H1 of the article, at most 500 characters. May be omitted when bodyMarkdown starts with "# Title".',
  slug: 'URL slug: letters, marks and digits of any script joined by single dashes, dots or underscores, at most 200 characters, stored lower case (e.g. cold-brew-coffee, 京都-カフェ, v1.2_notes). Default: made from the title. Put the focus keyword in it.',
  contentType: `Kind of article; sets its blog category: one of ${CONTENT_TYPE_NAMES.join(', ')}. Default BLOG_POST.`,
  bodyMarkdown: 'The article body as Markdown: ## and ### headings for sections, paragraphs, lists, links, ![alt](url) images. Do not repeat the title as a # heading. svc refuses a body it cannot render in time: lists and quotes nested more than 100 levels, or more than 2,000 emphasis and markup characters (* _ ~ ` < !) in one paragraph.',
  metaTitle: 'SEO title for the <title> tag, 30-60 characters (at most 500), containing the focus keyword. Default: the title.',
  metaDescription: 'Meta description, 120-160 characters (at most 2000), containing the focus keyword.',
  focusKeyword: 'The main search phrase the article targets, e.g. "cold brew coffee"; at most 200 characters.',
  secondaryKeywords: 'Related search phrases (a list, or one comma-separated string; at most 50 of at most 200 characters each); they become the article tags.',
  featuredImageUrl: 'Featured image, an http(s) URL of at most 2000 characters.',
  imageAlt: 'Alt text of the featured image, at most 500 characters (required by the audit when there is an image).',
  author: 'Author name shown with the article, at most 200 characters.',
  targetLength: 'Word count the article is written to; the audit expects at least 90% of it.',
};

/**
 * What tools/list advertises beyond what the validators say themselves: the text limits in
 * characters (code points, as JSON Schema's maxLength counts them and the domain does), the slug
 * pattern, the canonical content types (the category titles and slugs the domain also takes are
 * not advertised: one spelling per type), the keyword count.
 */
const upTo = (max: number) => z.string().max(max).nullable();
const slug = z.string().max(SLUG_MAX).regex(SLUG_INPUT_PATTERN);
const SHOWN: Shown<typeof articleCreateInput.shape & typeof articleUpdateInput.shape> = {
  title: z.string().max(TEXT_MAX.title),
  slug,
  contentType: z.enum(CONTENT_TYPE_NAMES as [string, ...string[]]),
  metaTitle: upTo(TEXT_MAX.metaTitle),
  metaDescription: upTo(TEXT_MAX.metaDescription),
  focusKeyword: upTo(TEXT_MAX.focusKeyword),
  secondaryKeywords: z.union([z.array(z.string().max(KEYWORD_MAX)).max(KEYWORDS_MAX), z.string()]),
  featuredImageUrl: upTo(TEXT_MAX.featuredImageUrl),
  imageAlt: upTo(TEXT_MAX.imageAlt),
  author: upTo(TEXT_MAX.author),
};
const { slug: _shownSlug, ...SHOWN_BUT_SLUG } = SHOWN;

// Labels as the domain service's parseInput calls, so a bad field reads the same as in the CLI.
const LIST = toolInput('list options', { ...articleListInput.shape, query: searchQueryInput }, {
  query: `Search the published articles (as the content API's GET /articles?q= does), best match first: words, or Japanese/Chinese/Korean text without spaces; accents optional; at most ${QUERY_MAX_LENGTH} characters. Drafts are not searched.`,
  status: 'Only articles in this state: draft, scheduled or published. Default: all. With query: published only.',
  limit: 'How many to return. Default 50.',
  offset: 'How many to skip (for the next page use offset + limit). Default 0.',
});
const CREATE = toolInput('article', { ...articleCreateInput.shape, allowDuplicate: z.boolean().optional() }, {
  ...FIELDS,
  allowDuplicate: 'Create it even when an article with the same title exists (it then gets a numbered slug). Default false: refused, so a retried call makes no copy.',
}, SHOWN);
const { slug: newSlug, ...UPDATE_FIELDS } = articleUpdateInput.shape;
const { slug: _slug, ...FIELDS_BUT_SLUG } = FIELDS;
const UPDATE = toolInput('article', { ...articleRef, ...UPDATE_FIELDS, newSlug }, {
  ...FIELDS_BUT_SLUG,
  ...ARTICLE_REF,
  title: 'New title (H1).',
  newSlug: 'A new URL slug (letters, marks and digits of any script joined by single dashes, dots or underscores, stored lower case). The live URL changes at the next publish: the old one then answers 404.',
}, { ...SHOWN_BUT_SLUG, newSlug: slug });

/**
 * A search by this agent's key or connection, within the daemon's search slots (app.searches), the
 * same bound as the content API's `q`: a refusal is a tool error the agent can wait on and retry.
 */
function search(env: ToolEnv, opts: { query: string; limit: number; offset: number }) {
  return env.app.searches.run(`mcp:${env.principal.id}`, () => searchPublishedArticles(env.app, env.workspace, opts));
}

/** list_articles with a query: the content API's search over published articles, best first. */
async function searchResult(env: ToolEnv, args: ArticleListInput & { query?: string }) {
  if (args.status !== undefined && args.status !== 'published') throw invalidInput('query searches the published articles: leave status out, or use status "published"');
  const limit = Number(args.limit ?? 50);
  const offset = Number(args.offset ?? 0);
  const found = await search(env, { query: args.query!, limit, offset });
  const shown = found.articles.length;
  const head = shown === 0
    ? `No published articles match "${args.query}"${offset ? ` after offset ${offset}` : ''} (total ${found.total}).`
    : `Published articles matching "${args.query}", best first, ${offset + 1}-${offset + shown} of ${found.total}:`;
  const more = offset + shown < found.total ? `\nMore: call again with offset ${offset + shown}.` : '';
  const listed = await summaries(env, found.articles);
  return text([head, ...found.articles.map((a, i) => summaryLine(a, listed[i]))].join('\n') + more, { total: found.total, limit, offset, nextOffset: offset + shown < found.total ? offset + shown : null, articles: listed });
}

/** A focus keyword other articles already have (in any spelling): said at once, as the audit says it. */
async function keywordWarnings(env: ToolEnv, a: Article): Promise<string[]> {
  const rivals = await focusKeywordRivals(env.app, env.workspace, a);
  return rivals.length > 0 ? [`Warning: ${rivalWarning(a.focusKeyword!, rivals)}`] : [];
}

const GET = toolInput('arguments', { ...articleRef, includeBody: z.boolean().optional() }, {
  ...ARTICLE_REF,
  includeBody: 'Include the Markdown body in the text. Default true; false for the fields and publication state only.',
});

const LINK_TARGETS = toolInput('arguments', { topic: searchQueryInput.unwrap(), limit: z.number().int().min(1).max(50).optional() }, {
  topic: `Words of the topic to link about (searched in the published articles' titles, keywords and text, as list_articles' query); at most ${QUERY_MAX_LENGTH} characters.`,
  limit: 'How many to return, best match first. Default 10, at most 50.',
});

export function registerArticleTools(server: McpServer, env: ToolEnv): void {
  const ws = env.workspace;

  server.registerTool(
    'find_link_targets',
    {
      title: 'Find articles to link to',
      description:
        'The published articles of this site matching a topic, best first, each with its public url, title and focus keyword: link to them ' +
        'from an article with Markdown links to that url, e.g. [anchor text](https://example.com/blog/slug). Only published articles are returned, ' +
        'so every link is live. Needs `read`.',
      inputSchema: LINK_TARGETS,
      outputSchema: OUTPUT.linkTargets,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'find_link_targets', scope: 'read', role: 'viewer' }, async (args: { topic: string; limit?: number }) => {
      const found = await search(env, { query: args.topic, limit: args.limit ?? 10, offset: 0 });
      const listed = await summaries(env, found.articles);
      const targets = listed.filter((a) => a.live && a.url).map((a) => ({ id: a.id, title: a.title, url: a.url!, focusKeyword: a.focusKeyword }));
      const lines = targets.map((t) => `- [${t.title}](${t.url})${t.focusKeyword ? ` focus keyword: ${t.focusKeyword}` : ''}`);
      const head = targets.length === 0 ? `No published article matches "${args.topic}".` : `Published articles to link to about "${args.topic}", best first (link with their url):`;
      return text([head, ...lines].join('\n'), { topic: args.topic, total: found.total, targets });
    }),
  );

  server.registerTool(
    'list_articles',
    {
      title: 'List articles',
      description: 'List the articles of the workspace, newest first, with id, slug, title, status and SEO score. Filter by status; page with limit and offset; or search the published ones with query (best match first). Needs `read`.',
      inputSchema: LIST,
      outputSchema: OUTPUT.list,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'list_articles', scope: 'read', role: 'viewer' }, async (args: ArticleListInput & { query?: string }) => {
      if (args.query !== undefined) return searchResult(env, args);
      const page = await listArticles(env.app, ws, args);
      const shown = page.articles.length;
      const head = shown === 0
        ? `No ${args.status ? `${args.status} ` : ''}articles${page.offset ? ` after offset ${page.offset}` : ''} (total ${page.total}).`
        : `Articles ${page.offset + 1}-${page.offset + shown} of ${page.total}${args.status ? ` (${args.status})` : ''}:`;
      const more = page.offset + shown < page.total ? `\nMore: call again with offset ${page.offset + shown}.` : '';
      const listed = await summaries(env, page.articles);
      return text([head, ...page.articles.map((a, i) => summaryLine(a, listed[i]))].join('\n') + more, {
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        nextOffset: page.offset + shown < page.total ? page.offset + shown : null,
        articles: listed,
      });
    }),
  );

  server.registerTool(
    'get_article',
    {
      title: 'Get an article',
      description:
        'Read one article (every SEO field, its publication state, and the Markdown body), by id or slug. The body is in the text only ' +
        '(structuredContent has the fields and bodyCharacters); includeBody: false leaves it out, to check the state cheaply. Needs `read`.',
      inputSchema: GET,
      outputSchema: OUTPUT.get,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'get_article', scope: 'read', role: 'viewer' }, async (args: { id?: string; slug?: string; includeBody?: boolean }) => {
      const a = await getArticle(env.app, ws, await refOf(env, args));
      const state = await publicationState(env.app, ws, a);
      const head = [
        `# ${a.title}`,
        `id: ${a.id} | slug: ${a.slug} | status: ${a.status}${a.scheduledAt ? ` (at ${a.scheduledAt})` : ''} | type: ${a.contentType} | SEO score: ${a.seoScore ?? 'not audited'}${isScoreStale(a) ? ' (stale: edited since the audit; run audit_article again)' : ''}`,
        `publication: ${describeState(state)}`,
        ...(a.publishError ? [`Attention: ${describePublishError(a)}`] : []),
        `focus keyword: ${a.focusKeyword ?? '-'} | secondary: ${a.secondaryKeywords.join(', ') || '-'}`,
        `meta title: ${a.metaTitle ?? '-'}`,
        `meta description: ${a.metaDescription ?? '-'}`,
        `target length: ${a.targetLength || '-'} | image: ${a.featuredImageUrl ?? '-'} | author: ${a.author ?? '-'}`,
      ];
      const body = args.includeBody === false ? `\n(body: ${[...a.bodyMarkdown].length} characters, left out)` : `\n\n${a.bodyMarkdown}`;
      return text(`${head.join('\n')}${body}`, detail(a, state));
    }),
  );

  server.registerTool(
    'create_article',
    {
      title: 'Create an article',
      description:
        'Write a new article into the workspace. It is saved as a draft, or published at once when the workspace has auto-publish on. ' +
        'Spends one `articles` credit (see get_site_profile). Needs `content`. Afterwards run audit_article and fix what it reports.',
      inputSchema: CREATE,
      outputSchema: OUTPUT.written,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    gated(env, { tool: 'create_article', scope: 'content', role: 'editor' }, async ({ allowDuplicate, ...args }: ArticleCreateInput & { allowDuplicate?: boolean }) => {
      const { article, published } = await createArticle(env.app, ws, args, { spendCredit: true, refuseDuplicate: !allowDuplicate });
      const state = published ? 'Created and published (auto-publish is on)' : 'Created draft';
      const warnings = await keywordWarnings(env, article);
      return text([`${state}: "${article.title}" (slug: ${article.slug}, id: ${article.id}). 1 article credit spent.`, ...warnings].join('\n'), { article: await summaryOf(env, article), published, warnings });
    }),
  );

  server.registerTool(
    'update_article',
    {
      title: 'Update an article',
      description:
        'Change fields of an existing article (by id or slug; newSlug renames it); only the fields you pass change. A published article keeps its live copy ' +
        'until you call publish_article again. Spends no credit. Needs `content`.',
      inputSchema: UPDATE,
      outputSchema: OUTPUT.written,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'update_article', scope: 'content', role: 'editor' }, async ({ id, slug, newSlug: renamed, ...rest }: Omit<ArticleUpdateInput, 'slug'> & { id?: string; slug?: string; newSlug?: string }) => {
      const ref = await refOf(env, { id, slug });
      const change: ArticleUpdateInput = { ...rest, slug: renamed };
      const a = await updateArticle(env.app, ws, ref, change);
      const live = a.status === 'published' ? ' It is published: call publish_article to update the live copy.' : '';
      const warnings = change.focusKeyword === undefined ? [] : await keywordWarnings(env, a);
      return text([`Updated "${a.title}" (slug: ${a.slug}, id: ${a.id}).${live}`, ...warnings].join('\n'), { article: await summaryOf(env, a), warnings });
    }),
  );
}
