import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ConnectorKind } from '../../connectors/store.js';
import { getArticle } from '../../articles/service.js';
import { scopeRefusal } from '../../auth/scopes.js';
import { forbidden } from '../../errors.js';
import { atMostChars } from '../../lib/validate.js';
import { deleteArticle, publishArticle, scheduleArticle, unpublishArticle, unscheduleArticle } from '../../publishing/publish.js';
import { type DestinationState, publicationState, waitForFirstAttempt } from '../../publishing/state.js';
import { type ToolEnv, gated, text } from '../result.js';
import { toolInput } from '../tool-input.js';
import { OUTPUT } from './output.js';
import { ARTICLE_REF, articleRef, articleRefInput, refOf, summary, summaryOf } from './present.js';

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

const SCHEDULE = toolInput('arguments', { ...articleRef, at: z.string().superRefine(atMostChars(64)), allowPast: z.boolean().optional() }, {
  ...ARTICLE_REF,
  at: 'When, ISO 8601 with Z or an offset, e.g. "2026-12-01T09:00:00Z" or "2026-12-01T10:00:00+01:00".',
  allowPast: 'A time already past is refused (nothing is scheduled) unless this is true: then it is published within seconds. Default false.',
}, { at: z.string().datetime({ offset: true }) }); // advertised as format date-time; the domain's reader decides

/** What the agent is told about the webhook after a publish: delivered, refused (and retried), or still pending. */
function webhookOutcome(d: DestinationState, waitedMs: number): string {
  if (d.state === 'delivered') return `The webhook receiver accepted it${d.publishedUrl ? ` (its URL: ${d.publishedUrl})` : ''}.`;
  const why = d.lastError ?? (d.lastStatus === null ? 'no answer' : `HTTP ${d.lastStatus}`);
  if (d.state === 'failed') return `WARNING: the webhook delivery FAILED (${why}): the receiver does not have this version.`;
  if (d.attempts === 0) {
    return `The webhook delivery is still pending: not tried within ${waitedMs / 1000}s. Call get_article later: its destinations say delivered, pending or failed.`;
  }
  return `WARNING: the webhook receiver did NOT accept it (${why}); it will be retried at ${d.nextAttemptAt}. Until a retry succeeds the receiver does not have this version; get_article shows the delivery state.`;
}

export function registerPublishingTools(server: McpServer, env: ToolEnv): void {
  server.registerTool(
    'publish_article',
    {
      title: 'Publish an article',
      description:
        'Publish (or republish) an article, by id or slug, to every enabled destination of the workspace: the headless content API ' +
        'and/or the webhook to the CMS; `to` limits it to one. Republishing replaces the live copy with the current version. Needs `publish`.',
      inputSchema: PUBLISH,
      outputSchema: OUTPUT.published,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    gated(env, { tool: 'publish_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; to?: 'headless' | 'webhook' }) => {
      const result = (await publishArticle(env.app, env.workspace, await refOf(env, args), { to: args.to }))!;
      const where = result.targets.map((t) => `${t.kind} (${t.event === 'article.published' ? 'first publish' : 'updated'})`).join(', ');
      const waitMs = env.app.config.mcp.publishWait;
      if (result.targets.some((t) => t.kind === 'webhook')) await waitForFirstAttempt(env.app, env.workspace, result.article.id, waitMs);
      const article = await getArticle(env.app, env.workspace, result.article.id);
      const state = await publicationState(env.app, env.workspace, article);
      const lines = [`Published "${article.title}" (${article.slug}) to ${where}.`];
      if (state.live) lines.push(`Live at ${state.url ?? '(the workspace has no site URL set)'}.`);
      const hook = state.destinations.find((d) => d.kind === 'webhook');
      if (hook && result.targets.some((t) => t.kind === 'webhook')) lines.push(webhookOutcome(hook, waitMs));
      return text(lines.join(' '), { article: summary(article, state), targets: result.targets });
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
      outputSchema: OUTPUT.unpublished,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    gated(env, { tool: 'unpublish_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; forceNotify?: boolean }) => {
      const result = await unpublishArticle(env.app, env.workspace, await refOf(env, args), { forceNotify: args.forceNotify });
      if (result.notifiedOnly) {
        return text(`Sent article.unpublished for "${result.article.title}" (${result.article.slug}) to the webhook receiver; it confirmed. It was not published here (${result.article.status}), so nothing else changed.`, {
          article: await summaryOf(env, result.article),
          removedFrom: [],
          notifiedOnly: true,
        });
      }
      const from = result.removedFrom.length ? ` from ${result.removedFrom.join(', ')}` : '';
      const notTold = result.receiverNotTold ? ' The webhook is disabled, so its receiver was not told.' : '';
      return text(`Unpublished "${result.article.title}" (${result.article.slug})${from}; it is now a draft.${notTold}`, {
        article: await summaryOf(env, result.article),
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
        'offset and may be at most 10 years ahead; a time already past is refused unless allowPast is true. A published article stays ' +
        'published (and live) until its scheduled republish. If the publish then fails, the article stays scheduled, list_articles and ' +
        'get_article show the error, and it is tried again later. unschedule_article cancels it. Needs `publish`.',
      inputSchema: SCHEDULE,
      outputSchema: OUTPUT.one,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    gated(env, { tool: 'schedule_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string; at: string; allowPast?: boolean }) => {
      const a = await scheduleArticle(env.app, env.workspace, await refOf(env, args), args.at, { allowPast: args.allowPast });
      const live = a.status === 'published' ? ' It stays live as it is until then.' : '';
      return text(`Scheduled "${a.title}" (${a.slug}) to be published at ${a.scheduledAt}.${live}`, { article: await summaryOf(env, a) });
    }),
  );

  server.registerTool(
    'unschedule_article',
    {
      title: 'Cancel a scheduled publish',
      description:
        'Cancel the scheduled publish of an article (by id or slug): a scheduled draft becomes a draft again; a published article stays ' +
        'published as it is. Needs `publish`.',
      inputSchema: articleRefInput,
      outputSchema: OUTPUT.one,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    gated(env, { tool: 'unschedule_article', scope: 'publish', role: 'editor' }, async (args: { id?: string; slug?: string }) => {
      const a = await unscheduleArticle(env.app, env.workspace, await refOf(env, args));
      return text(`Cancelled the scheduled publish of "${a.title}" (${a.slug}); it is ${a.status === 'published' ? 'still published' : 'a draft'}.`, { article: await summaryOf(env, a) });
    }),
  );

  server.registerTool(
    'delete_article',
    {
      title: 'Delete an article',
      description:
        'Delete an article (by id or slug) for good. A published article leaves the content API at once and the webhook receiver is sent ' +
        'article.deleted (with retries). Needs `publish` for a published article, `content` for one that is not. Cannot be undone.',
      inputSchema: articleRefInput,
      outputSchema: OUTPUT.deleted,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    gated(env, { tool: 'delete_article', scope: 'depends', role: 'editor' }, async (args: { id?: string; slug?: string }) => {
      const a = await getArticle(env.app, env.workspace, await refOf(env, args));
      const state = await publicationState(env.app, env.workspace, a);
      // Taking a published article down is publishing work; a draft is content.
      const needed = state.destinations.length > 0 ? 'publish' : 'content';
      if (!env.principal.scopes.includes(needed)) {
        throw forbidden(`${scopeRefusal(needed)}: "${a.slug}" is ${needed === 'publish' ? 'published, and deleting it takes it down' : 'a draft'}`);
      }
      const { notified } = await deleteArticle(env.app, env.workspace, a.id);
      const down = state.destinations.length > 0 ? ` It was taken down${state.live ? ` from ${state.url ?? 'the content API'}` : ''}.` : '';
      const told = notified ? ' The webhook receiver is sent article.deleted (retried until it confirms).' : '';
      return text(`Deleted "${a.title}" (${a.slug}).${down}${told}`, { id: a.id, slug: a.slug, deleted: true, wasPublished: state.destinations.length > 0, webhookNotified: notified });
    }),
  );
}
