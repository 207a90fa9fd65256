import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ConnectorKind } from '../../connectors/store.js';
import { publishArticle, scheduleArticle, unpublishArticle } from '../../publishing/publish.js';
import { type ToolEnv, gated, text } from '../result.js';
import { toolInput } from '../tool-input.js';
import { ARTICLE_REF, articleRef, refOf, summary } from './present.js';

const PUBLISH = toolInput('arguments', { ...articleRef, to: z.enum(['headless', 'webhook'] as const satisfies readonly ConnectorKind[]).optional() }, {
  ...ARTICLE_REF,
  to: 'Publish only to this destination. Default: every enabled one.',
});

const UNPUBLISH = toolInput('arguments', { ...articleRef, forceNotify: z.boolean().optional() }, {
  ...ARTICLE_REF,
  forceNotify:
    'Send the webhook receiver article.unpublished even when the article is not published here (a restore rolled it back to a ' +
    'draft while the receiver still shows it): the receiver is told and must confirm; nothing else changes. Default false.',
});

const SCHEDULE = toolInput('arguments', { ...articleRef, at: z.string().max(64) }, {
  ...ARTICLE_REF,
  at: 'When, ISO 8601 with Z or an offset, e.g. "2026-12-01T09:00:00Z" or "2026-12-01T10:00:00+01:00".',
});

export function registerPublishingTools(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'publish_article',
    {
      title: 'Publish an article',
      description:
        'Publish (or republish) an article, by id or slug, to every enabled destination of the workspace: the headless content API ' +
        'and/or the webhook to the CMS; `to` limits it to one. Republishing replaces the live copy with the current version. Needs `publish`.',
      inputSchema: PUBLISH,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    gated(env, { tool: 'publish_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; to?: 'headless' | 'webhook' }) => {
      const result = (await publishArticle(env.app, env.workspace, refOf(args), { to: args.to }))!;
      const where = result.targets.map((t) => `${t.kind} (${t.event === 'article.published' ? 'first publish' : 'updated'})`).join(', ');
      const queued = result.targets.some((t) => t.kind === 'webhook') ? ' The webhook delivery is queued.' : '';
      return text(`Published "${result.article.title}" (${result.article.slug}) to ${where}.${queued}`, { article: summary(result.article), targets: result.targets });
    }),
  );

  server.registerTool(
    'unpublish_article',
    {
      title: 'Unpublish an article',
      description:
        'Take a published article (by id or slug) down from every destination; it becomes a draft. When it is on the webhook, the ' +
        'receiver must confirm first: if it refuses, nothing changes and its answer is reported. forceNotify sends the receiver ' +
        'article.unpublished for an article that is not published here. Needs `publish`.',
      inputSchema: UNPUBLISH,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    gated(env, { tool: 'unpublish_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; forceNotify?: boolean }) => {
      const result = await unpublishArticle(env.app, env.workspace, refOf(args), { forceNotify: args.forceNotify });
      if (result.notifiedOnly) {
        return text(`Sent article.unpublished for "${result.article.title}" (${result.article.slug}) to the webhook receiver; it confirmed. It was not published here (${result.article.status}), so nothing else changed.`, {
          article: summary(result.article),
          removedFrom: [],
          notifiedOnly: true,
        });
      }
      const from = result.removedFrom.length ? ` from ${result.removedFrom.join(', ')}` : '';
      const notTold = result.receiverNotTold ? ' The webhook is disabled, so its receiver was not told.' : '';
      return text(`Unpublished "${result.article.title}" (${result.article.slug})${from}; it is now a draft.${notTold}`, {
        article: summary(result.article),
        removedFrom: result.removedFrom,
        receiverNotTold: result.receiverNotTold,
        notifiedOnly: false,
      });
    }),
  );

  server.registerTool(
    'schedule_article',
    {
      title: 'Schedule an article',
      description:
        'Have the server publish an article (by id or slug) by itself at a given time, to every enabled destination. The time needs Z or an ' +
        'offset and may be at most 10 years ahead; a time already past publishes within seconds. If the publish then fails, the article ' +
        'stays scheduled, list_articles and get_article show the error, and it is tried again later. Needs `publish`.',
      inputSchema: SCHEDULE,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    gated(env, { tool: 'schedule_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; at: string }) => {
      const a = await scheduleArticle(env.app, env.workspace, refOf(args), args.at);
      return text(`Scheduled "${a.title}" (${a.slug}) to be published at ${a.scheduledAt}.`, { article: summary(a) });
    }),
  );
}
