import type { Command } from 'commander';
import type { ConnectorKind } from '../connectors/store.js';
import { AppError, usageError } from '../errors.js';
import { publishArticle, scheduleArticle, unscheduleArticle } from '../publishing/publish.js';
import { findArticles, listDrafts, publishMany } from '../publishing/publish-many.js';
import { act, WORKSPACE_OPTION } from './harness.js';
import { type Io, table } from './io.js';
import { progressBar } from './progress.js';
import { webhookQueueNote } from './webhooks.js';

/** `svc articles publish` (one, many, or every draft) and `svc articles schedule`. */
export function registerPublish(articles: Command, io: Io): void {
  articles
    .command('publish')
    .description('publish (or republish) articles to every enabled destination, or one with --to')
    .argument('[ids|slugs...]', 'the articles to publish')
    .option(...WORKSPACE_OPTION)
    .option('--to <kind>', 'headless | webhook')
    .option('--all-drafts', 'publish every draft of the workspace')
    .option('--keep-going', 'publish what can be published and report the rest (exit 1 when any could not)')
    .action(
      act<{ workspace?: string; to?: string; allDrafts?: boolean; keepGoing?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        if (opts.to && opts.to !== 'headless' && opts.to !== 'webhook') throw usageError(`--to takes headless or webhook, not "${opts.to}"`);
        if (opts.allDrafts && args.length > 0) throw usageError('Pass article ids or slugs, or --all-drafts, not both');
        if (!opts.allDrafts && args.length === 0) throw usageError('Name the articles to publish (ids or slugs), or pass --all-drafts');
        const to = opts.to as ConnectorKind | undefined;
        const ws = await workspace();
        if (args.length === 1) {
          const result = (await publishArticle(app, ws, args[0], { to }))!;
          if (result.targets.some((t) => t.kind === 'webhook')) out.note(await webhookQueueNote(app));
          out.result(result, () => `Published ${result.article.slug} to ${result.targets.map((t) => `${t.kind} (${t.event})`).join(', ')}`);
          return;
        }
        const list = opts.allDrafts ? await listDrafts(app, ws) : await findArticles(app, ws, args);
        const bar = progressBar(io, list.length, 'Publishing', { rerun: opts.allDrafts ? 'what is published is no longer a draft' : 'the articles published already are published again (an update)' });
        const result = await publishMany(app, ws, list, { to, onlyIf: opts.allDrafts ? 'draft' : undefined, keepGoing: opts.keepGoing, onProgress: (n) => bar.update(n) }).finally(() => bar.done());
        if (result.published.some((r) => r.targets.some((t) => t.kind === 'webhook'))) out.note(await webhookQueueNote(app));
        if (result.skipped.length > 0) out.note(`note: ${result.skipped.length} draft${result.skipped.length === 1 ? ' was' : 's were'} published meanwhile by another process`);
        const rows = result.published.map((r) => ({ slug: r.article.slug, id: r.article.id, to: targetsText(r.targets) }));
        const json = {
          published: result.published.map((r) => ({ id: r.article.id, slug: r.article.slug, targets: r.targets })),
          skipped: result.skipped.map((a) => ({ id: a.id, slug: a.slug })),
          failed: result.failed.map((f) => ({ id: f.article.id, slug: f.article.slug, error: f.error.message })),
        };
        const text = () => (rows.length ? `Published ${rows.length} article${rows.length === 1 ? '' : 's'}\n${table(rows, ['slug', 'to', 'id'])}` : opts.allDrafts ? 'No drafts to publish' : 'Nothing was published');
        if (result.failed.length > 0) {
          if (!out.json) out.result(json, text);
          throw new AppError('publish_incomplete', 400, `${result.failed.length} could not be published:\n  ${json.failed.map((f) => `${f.slug}: ${f.error}`).join('\n  ')}`, { details: json });
        }
        out.result(json, text);
      }),
    );

  articles
    .command('schedule')
    .description('publish the article automatically at a time (the daemon must be running)')
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .requiredOption('--at <iso>', 'when, with Z or an offset, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00')
    .option('--allow-past', 'accept a time already past: the daemon publishes it within seconds (refused otherwise)')
    .action(
      act<{ workspace?: string; at: string; allowPast?: boolean }>(io, async ({ app, args, opts, out, workspace }) => {
        const a = await scheduleArticle(app, await workspace(), args[0], opts.at, { allowPast: opts.allowPast });
        out.result(a, () => `Scheduled ${a.slug} for ${a.scheduledAt}`);
      }),
    );

  articles
    .command('unschedule')
    .description('cancel the scheduled publish of an article (a scheduled draft becomes a draft; a published article stays as it is)')
    .argument('<id|slug>')
    .option(...WORKSPACE_OPTION)
    .action(
      act<{ workspace?: string }>(io, async ({ app, args, out, workspace }) => {
        const a = await unscheduleArticle(app, await workspace(), args[0]);
        out.result(a, () => `Cancelled the scheduled publish of ${a.slug} (now ${a.status})`);
      }),
    );
}

/**
 * Where an article went, short enough for its table column (cut, "headless
 * (article.published), webhook (…" hid the webhook): "headless, webhook: published", or per
 * destination when the events differ.
 */
export function targetsText(targets: Array<{ kind: string; event: string }>): string {
  const event = (t: { event: string }) => t.event.replace(/^article\./, '');
  const events = new Set(targets.map(event));
  if (events.size === 1) return `${targets.map((t) => t.kind).join(', ')}: ${[...events][0]}`;
  return targets.map((t) => `${t.kind} (${event(t)})`).join(', ');
}
