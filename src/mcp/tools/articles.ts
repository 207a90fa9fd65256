import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CONTENT_TYPE_NAMES } from '../../articles/categories.js';
import { createArticle } from '../../publishing/create.js';
import { ARTICLE_STATUSES } from '../../articles/inputs.js';
import { getArticle, listArticles, updateArticle } from '../../articles/service.js';
import { describePublishError } from '../../publishing/failures.js';
import { type ToolEnv, gated, text } from '../result.js';
import { articleRef, detail, refOf, summary, summaryLine } from './present.js';

const fields = {
  slug: z.string().max(200).optional().describe('URL slug: lower-case letters, digits and single dashes. Default: made from the title. Put the focus keyword in it.'),
  contentType: z.enum(CONTENT_TYPE_NAMES as [string, ...string[]]).optional().describe('Kind of article; sets its blog category. Default BLOG_POST.'),
  metaTitle: z.string().max(500).optional().describe('SEO title for the <title> tag, 30-60 characters, containing the focus keyword. Default: the title.'),
  metaDescription: z.string().max(2000).optional().describe('Meta description, 120-160 characters, containing the focus keyword.'),
  focusKeyword: z.string().max(200).optional().describe('The main search phrase the article targets, e.g. "cold brew coffee".'),
  secondaryKeywords: z.array(z.string().max(200)).max(50).optional().describe('Related search phrases; they become the article tags.'),
  featuredImageUrl: z.string().max(2000).optional().describe('Featured image, an http(s) URL.'),
  imageAlt: z.string().max(500).optional().describe('Alt text of the featured image (required by the audit when there is an image).'),
  author: z.string().max(200).optional().describe('Author name shown with the article.'),
  targetLength: z.number().int().min(0).max(100_000).optional().describe('Word count the article is written to; the audit expects at least 90% of it.'),
};

const BODY = 'The article body as Markdown: ## and ### headings for sections, paragraphs, lists, links, ![alt](url) images. Do not repeat the title as a # heading.';

export function registerArticleTools(server: McpServer, env: ToolEnv): void {
  const ws = env.workspace;

  server.registerTool(
    'list_articles',
    {
      title: 'List articles',
      description: 'List the articles of the workspace, newest first, with id, slug, title, status and SEO score. Filter by status; page with limit and offset. Needs `read`.',
      inputSchema: {
        status: z.enum(ARTICLE_STATUSES).optional().describe('Only articles in this state: draft, scheduled or published. Default: all.'),
        limit: z.number().int().min(1).max(100).optional().describe('How many to return, 1-100. Default 20.'),
        offset: z.number().int().min(0).optional().describe('How many to skip (for the next page use offset + limit). Default 0.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'list_articles', scope: 'read', role: 'viewer' }, async (args: { status?: (typeof ARTICLE_STATUSES)[number]; limit?: number; offset?: number }) => {
      const page = await listArticles(env.app, ws, { status: args.status, limit: args.limit ?? 20, offset: args.offset ?? 0 });
      const shown = page.articles.length;
      const head = shown === 0
        ? `No ${args.status ? `${args.status} ` : ''}articles${page.offset ? ` after offset ${page.offset}` : ''} (total ${page.total}).`
        : `Articles ${page.offset + 1}-${page.offset + shown} of ${page.total}${args.status ? ` (${args.status})` : ''}:`;
      const more = page.offset + shown < page.total ? `\nMore: call again with offset ${page.offset + shown}.` : '';
      return text([head, ...page.articles.map(summaryLine)].join('\n') + more, {
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        articles: page.articles.map(summary),
      });
    }),
  );

  server.registerTool(
    'get_article',
    {
      title: 'Get an article',
      description: 'Read one article in full (Markdown body and every SEO field), by id or slug. Needs `read`.',
      inputSchema: articleRef,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'get_article', scope: 'read', role: 'viewer' }, async (args: { id?: string; slug?: string }) => {
      const a = await getArticle(env.app, ws, refOf(args));
      const head = [
        `# ${a.title}`,
        `id: ${a.id} | slug: ${a.slug} | status: ${a.status}${a.scheduledAt ? ` (at ${a.scheduledAt})` : ''} | type: ${a.contentType} | SEO score: ${a.seoScore ?? 'not audited'}`,
        ...(a.publishError ? [`Attention: ${describePublishError(a)}`] : []),
        `focus keyword: ${a.focusKeyword ?? '-'} | secondary: ${a.secondaryKeywords.join(', ') || '-'}`,
        `meta title: ${a.metaTitle ?? '-'}`,
        `meta description: ${a.metaDescription ?? '-'}`,
        `target length: ${a.targetLength || '-'} | image: ${a.featuredImageUrl ?? '-'} | author: ${a.author ?? '-'}`,
      ];
      return text(`${head.join('\n')}\n\n${a.bodyMarkdown}`, detail(a));
    }),
  );

  server.registerTool(
    'create_article',
    {
      title: 'Create an article',
      description:
        'Write a new article into the workspace. It is saved as a draft, or published at once when the workspace has auto-publish on. ' +
        'Spends one `articles` credit (see get_site_profile). Needs `content`. Afterwards run audit_article and fix what it reports.',
      inputSchema: {
        title: z.string().max(500).optional().describe('The H1 of the article. May be omitted when bodyMarkdown starts with "# Title".'),
        bodyMarkdown: z.string().max(2_000_000).describe(BODY),
        ...fields,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    gated(env, { tool: 'create_article', scope: 'content', role: 'editor' }, async (args: Record<string, unknown>) => {
      const { article, published } = await createArticle(env.app, ws, args as never, { spendCredit: true });
      const state = published ? 'Created and published (auto-publish is on)' : 'Created draft';
      return text(`${state}: "${article.title}" (slug: ${article.slug}, id: ${article.id}). 1 article credit spent.`, { article: summary(article), published });
    }),
  );

  server.registerTool(
    'update_article',
    {
      title: 'Update an article',
      description:
        'Change fields of an existing article (by id or slug); only the fields you pass change. A published article keeps its live copy ' +
        'until you call publish_article again. Spends no credit. Needs `content`.',
      inputSchema: {
        ...articleRef,
        title: z.string().min(1).max(500).optional().describe('New title (H1).'),
        bodyMarkdown: z.string().max(2_000_000).optional().describe(BODY),
        ...fields,
        slug: fields.slug.describe('New URL slug (lower-case letters, digits, dashes). To find the article by slug, use `slug` only when not also changing it; prefer `id`.'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    gated(env, { tool: 'update_article', scope: 'content', role: 'editor' }, async (args: Record<string, unknown> & { id?: string; slug?: string }) => {
      // With an id, `slug` is a new slug; without one, `slug` names the article.
      const { id, ...rest } = args;
      const ref = refOf({ id, slug: id ? undefined : args.slug });
      const change = id ? rest : { ...rest, slug: undefined };
      const a = await updateArticle(env.app, ws, ref, change as never);
      const live = a.status === 'published' ? ' It is published: call publish_article to update the live copy.' : '';
      return text(`Updated "${a.title}" (slug: ${a.slug}, id: ${a.id}).${live}`, { article: summary(a) });
    }),
  );
}
