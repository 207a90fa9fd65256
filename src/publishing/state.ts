import type { Ctx } from '../context.js';
import type { Article } from '../articles/types.js';
import { type ConnectorKind, listConnectors } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import { articleUrl } from '../content/article-url.js';
import { servedSlugs } from '../content/snapshot-store.js';
import { latestPublishEvents } from '../webhooks/store.js';
import type { Workspace } from '../workspaces/types.js';

/** Where one destination stands with the article's last publish. */
export interface DestinationState {
  kind: ConnectorKind;
  /** headless: delivered once served. webhook: the last publish/update event's state. */
  state: 'delivered' | 'pending' | 'failed';
  /** Attempts made so far (webhook). */
  attempts: number;
  /** pending: when the next attempt is due. */
  nextAttemptAt: string | null;
  /** The receiver's last HTTP status (null: no answer, or never tried). */
  lastStatus: number | null;
  /** Why the last attempt failed, with the start of the receiver's answer (at most 200 characters). */
  lastError: string | null;
  /** The URL the receiver answered for the post (webhook), if it did. */
  publishedUrl: string | null;
}

/** The truth about an article's publication, as every surface shows it: the agent must never report a failure as a success. */
export interface PublicationState {
  /** The public URL: where the content API serves it, or where it will once published. Null without a site URL. */
  url: string | null;
  /** The first publish ever (kept through unpublish and republish); null when never published. */
  publishedAt: string | null;
  /** The content API serves it now. */
  live: boolean;
  /** It is published somewhere and was edited since its last publish. */
  hasUnpublishedChanges: boolean;
  /** Each destination it is published to. */
  destinations: DestinationState[];
}

const EXCERPT = 200;

/** The state of each article, in one query per kind of row whatever the number of articles. */
export async function publicationStates(ctx: Ctx, ws: Workspace, list: Article[]): Promise<Map<string, PublicationState>> {
  const ids = list.map((a) => a.id);
  const connectors = await listConnectors(ctx.db, ws.id);
  const [pubs, served] = await Promise.all([publications.findMany(ctx.db, ids, connectors.map((c) => c.id)), servedSlugs(ctx.db, ids)]);
  const webhook = connectors.find((c) => c.kind === 'webhook');
  const events = webhook ? await latestPublishEvents(ctx.db, webhook.id, ids) : new Map();
  const out = new Map<string, PublicationState>();
  for (const a of list) {
    const destinations: DestinationState[] = [];
    for (const c of connectors) {
      const pub = pubs.get(`${a.id} ${c.id}`);
      if (!pub) continue;
      const base = { kind: c.kind, attempts: 0, nextAttemptAt: null, lastStatus: null, lastError: null, publishedUrl: pub.publishedUrl };
      if (c.kind === 'headless') {
        destinations.push({ ...base, state: served.has(a.id) ? 'delivered' : 'failed', lastError: served.has(a.id) ? null : 'not served by the content API' });
        continue;
      }
      const e = events.get(a.id);
      if (!e) {
        destinations.push({ ...base, state: 'delivered' });
        continue;
      }
      const state = e.status === 'delivered' ? 'delivered' : e.status === 'pending' ? 'pending' : 'failed';
      const why = [e.lastError, e.responseExcerpt?.replace(/\s+/g, ' ').trim()].filter(Boolean).join(': ');
      destinations.push({
        ...base,
        state,
        attempts: e.attempts,
        nextAttemptAt: state === 'pending' ? e.nextAttemptAt : null,
        lastStatus: e.lastStatus,
        lastError: state === 'delivered' || !why ? (e.status === 'cancelled' ? 'cancelled: a later change superseded it' : null) : why.slice(0, EXCERPT),
      });
    }
    const liveSlug = served.get(a.id);
    out.set(a.id, {
      url: articleUrl(ws, liveSlug ?? a.slug),
      publishedAt: a.firstPublishedAt,
      live: liveSlug !== undefined,
      hasUnpublishedChanges: destinations.length > 0 && a.revision > (a.publishedRevision ?? -1),
      destinations,
    });
  }
  return out;
}

export async function publicationState(ctx: Ctx, ws: Workspace, article: Article): Promise<PublicationState> {
  return (await publicationStates(ctx, ws, [article])).get(article.id)!;
}

/** One line for a person or an agent: where it is live, and what is wrong with a destination. */
export function describeState(s: PublicationState): string {
  const where = s.live ? `live at ${s.url ?? '(no site URL set)'}` : 'not live';
  const since = s.publishedAt ? `, first published ${s.publishedAt}` : '';
  const changes = s.hasUnpublishedChanges ? '; edited since its last publish (publish again to update the live copy)' : '';
  const dests = s.destinations.map(describeDestination).join('; ');
  return `${where}${since}${changes}${dests ? `. ${dests}` : ''}`;
}

export function describeDestination(d: DestinationState): string {
  if (d.state === 'delivered') return `${d.kind}: delivered${d.publishedUrl ? ` (${d.publishedUrl})` : ''}`;
  const why = d.lastError ?? (d.lastStatus === null ? 'no answer' : `HTTP ${d.lastStatus}`);
  if (d.state === 'pending') {
    return d.attempts === 0
      ? `${d.kind}: pending, not tried yet`
      : `${d.kind}: pending after ${d.attempts} failed attempt${d.attempts === 1 ? '' : 's'} (${why}), next try at ${d.nextAttemptAt}`;
  }
  return `${d.kind}: FAILED (${why}); the receiver does not have this version`;
}

/**
 * Wait, at most `withinMs` of real time, until the webhook's latest publish event of the article
 * was tried once (or settled): woken by this process's attempts (webhooks.attempted), else found
 * by a poll backing off from 25 ms to 500 ms (a worker of another daemon). Then the state tells
 * the outcome, or that it is still pending.
 */
export async function waitForFirstAttempt(ctx: Ctx, ws: Workspace, articleId: string, withinMs: number): Promise<void> {
  const webhook = (await listConnectors(ctx.db, ws.id)).find((c) => c.kind === 'webhook');
  if (!webhook) return;
  const giveUpAt = Date.now() + withinMs;
  for (let wait = 25; ; wait = Math.min(2 * wait, 500)) {
    const e = (await latestPublishEvents(ctx.db, webhook.id, [articleId])).get(articleId);
    if (!e || e.attempts > 0 || e.status !== 'pending') return;
    const left = giveUpAt - Date.now();
    if (left <= 0) return;
    await new Promise<void>((resolve) => {
      const done = ({ eventId }: { eventId: string }) => {
        if (eventId !== e.id) return;
        finish();
      };
      const finish = () => {
        clearTimeout(timer);
        ctx.events.off('webhooks.attempted', done);
        resolve();
      };
      const timer = setTimeout(finish, Math.min(wait, left));
      ctx.events.on('webhooks.attempted', done);
    });
  }
}
