import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import * as articles from '../articles/store.js';
import type { ArticleStatus } from '../articles/inputs.js';
import type { Article } from '../articles/types.js';
import type { ConnectorKind } from '../connectors/store.js';
import type { Workspace } from '../workspaces/types.js';
import { type PublishResult, type RenderedBodies, announce, destinations, firstPublishTimes, publishRows, renderAhead, renderBodies } from './publish-rows.js';

/**
 * Articles per publish transaction: a few multi-row statements, tens of milliseconds of writing,
 * so other writers (the daemon) never wait long, and the workers render the next batches meanwhile.
 */
export const PUBLISH_BATCH = 250;

/** Batches rendering ahead of the one being written: the workers never wait for a transaction. */
const RENDER_AHEAD = 2;

export interface PublishManyOptions {
  to?: ConnectorKind;
  /** Publish only articles still in this state when their turn comes (`draft` for --all-drafts): two runs never publish one twice. */
  onlyIf?: ArticleStatus;
  /** Go on past an article that cannot be published, reporting it; otherwise stop there. */
  keepGoing?: boolean;
  /** Called after each batch with how many articles were handled so far. */
  onProgress?: (done: number) => void;
  /**
   * Called with each batch's results as it is written. When given, `published` stays empty: a
   * caller publishing a whole archive keeps what it needs of them, not every article.
   */
  onPublished?: (results: PublishResult[]) => void;
}

export interface PublishManyResult {
  published: PublishResult[];
  /** Articles another process published meanwhile (only with `onlyIf`). */
  skipped: Article[];
  failed: Array<{ article: Article; error: AppError }>;
}

/** The articles named by ids or slugs, in the order given; every unknown one is named in one error. */
export async function findArticles(ctx: Ctx, ws: Workspace, refs: string[]): Promise<Article[]> {
  const found = await articles.findArticles(ctx.db, ws.id, refs);
  const byRef = new Map(found.flatMap((a) => [[a.id, a], [a.slug, a]] as Array<[string, Article]>));
  const missing = refs.filter((r) => !byRef.has(r));
  if (missing.length > 0) {
    throw new AppError('not_found', 404, `No article ${missing.map((m) => `"${m}"`).join(', ')} in workspace ${ws.name}; nothing was published`, {
      hint: `List articles with: svc articles list --workspace ${ws.name}`,
    });
  }
  return [...new Map(refs.map((r) => [byRef.get(r)!.id, byRef.get(r)!])).values()];
}

/** Every draft of the workspace. */
export const listDrafts = (ctx: Ctx, ws: Workspace): Promise<Article[]> => articles.draftRows(ctx.db, ws.id);

/**
 * Publish many articles through the same per-article steps as publishArticle, PUBLISH_BATCH to a
 * transaction, oldest first-publish time first: an imported archive then appends to the content
 * index in bulk instead of slotting each post under the newer ones.
 */
export async function publishMany(ctx: Ctx, ws: Workspace, list: Article[], opts: PublishManyOptions = {}): Promise<PublishManyResult> {
  const connectors = await destinations(ctx, ws, opts.to);
  const now = nowIso(ctx.clock);
  const key = (a: Article) => `${firstPublishTimes(a, now).publishedAt} ${a.id}`;
  const ordered = [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const out: PublishManyResult = { published: [], skipped: [], failed: [] };
  const run = async (batch: Article[], rendered: RenderedBodies) => {
    const results = await withTransaction(ctx.db, (trx) => publishRows(trx, ctx, ws, batch, connectors, rendered, opts.onlyIf));
    if (results.length > 0) announce(ctx, ws, connectors.map((c) => c.kind));
    const done = new Set(results.map((r) => r.article.id));
    if (opts.onPublished) opts.onPublished(results);
    else out.published.push(...results);
    out.skipped.push(...batch.filter((a) => !done.has(a.id)));
  };
  const batches: Article[][] = [];
  for (let i = 0; i < ordered.length; i += PUBLISH_BATCH) batches.push(ordered.slice(i, i + PUBLISH_BATCH));
  // The next batches render in the workers, and their snapshots are made, while this one is written.
  const render = (batch: Article[]): Promise<RenderedBodies | Error> => renderAhead(ctx, ws, batch, connectors).catch((err: Error) => err);
  const ahead = batches.slice(0, RENDER_AHEAD).map(render);
  for (let b = 0; b < batches.length; b++) {
    const batch = batches[b];
    const rendered = await ahead.shift()!;
    if (b + RENDER_AHEAD < batches.length) ahead.push(render(batches[b + RENDER_AHEAD]));
    try {
      if (rendered instanceof Error) throw rendered;
      await run(batch, rendered);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // One at a time, to name the article that cannot be published.
      for (const article of batch) {
        try {
          await run([article], rendered instanceof Error ? await renderBodies(ctx, [article]) : rendered);
        } catch (one) {
          if (!(one instanceof AppError)) throw one;
          if (!opts.keepGoing) {
            throw new AppError(one.code, one.status, `${article.slug}: ${one.message} (${out.published.length} of ${ordered.length} published before it)`, { hint: one.hint });
          }
          out.failed.push({ article, error: one });
        }
      }
    }
    opts.onProgress?.(Math.min((b + 1) * PUBLISH_BATCH, ordered.length));
  }
  return out;
}

/** Schedule many articles, each at its own time (already checked), in batched transactions. */
export async function scheduleMany(ctx: Ctx, items: Array<{ article: Article; at: string }>): Promise<void> {
  const now = nowIso(ctx.clock);
  for (let i = 0; i < items.length; i += PUBLISH_BATCH) {
    const batch = items.slice(i, i + PUBLISH_BATCH).map(({ article, at }) => ({ id: article.id, at }));
    await withTransaction(ctx.db, (trx) => articles.scheduleRows(trx, batch, now));
  }
}
