import type { Ctx } from '../context.js';
import { type Connector, findConnector, updateConnector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import { withTransaction } from '../db/tx.js';
import { newId } from '../lib/ids.js';
import { postOnce } from './http-post.js';
import { buildPayload } from './payload.js';
import { retryDelay, retryAfterMs } from './retry.js';
import { activeSecrets } from './secrets.js';
import { signatureHeader } from './sign.js';
import { type EventRow, insertDelivery, settleEvent } from './store.js';

export interface AttemptOutcome {
  deliveryId: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The start of the receiver's answer (up to webhooks.responseExcerptBytes). */
  response: string;
  /** What the event became: delivered, pending (a retry is scheduled) or failed. */
  eventStatus: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: string | null;
}

/** Events answered at once to the person who asked: never retried (decisions.md, Retries). */
const NO_RETRY = new Set(['test', 'article.unpublished']);

/**
 * The lease a process holds on an event: long enough to wait behind one attempt in the worker's
 * queue, make its own (both bounded by the timeout) and record the result.
 */
export const leaseMs = (ctx: Ctx): number => 2 * ctx.config.webhooks.timeout + 5_000;

/**
 * One delivery attempt of a claimed event: build the payload anew, sign the exact bytes, POST,
 * log the attempt, then settle the event (delivered, retry scheduled, or failed) and the
 * connector's health (410 disables it; failing for webhooks.disableAfter disables it).
 */
export async function attemptEvent(ctx: Ctx, event: EventRow, connector: Connector): Promise<AttemptOutcome> {
  const now = ctx.clock.now();
  const deliveryId = newId('dlv');
  const publication = event.event === 'test' ? undefined : await publications.find(ctx.db, event.articleId, event.connectorId);
  const payload = buildPayload({
    event: event.event,
    eventId: event.id,
    deliveryId,
    deliveredAt: now.toISOString(),
    snapshot: event.snapshot,
    publishedUrl: publication ? (publication.publishedUrl ?? event.snapshot.publication.publishedUrl) : undefined,
  });
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Signature': signatureHeader(body, activeSecrets(connector, now), Math.floor(now.getTime() / 1000)),
    'X-Service-Event': event.event,
    'X-Service-Delivery': deliveryId,
    'X-Service-Event-Id': event.id,
  };
  const res = await postOnce(new URL(connector.url!), body, headers, ctx.config.webhooks);
  const ok = res.status !== null && res.status >= 200 && res.status < 300;
  const error = ok ? null : (res.error ?? describeStatus(res.status!));
  const finishedAt = ctx.clock.now();
  const at = finishedAt.toISOString();

  if (ok && publication && (event.event === 'article.published' || event.event === 'article.updated')) {
    const url = publishedUrlFrom(res.body);
    if (url) await publications.setPublishedUrl(ctx.db, event.articleId, event.connectorId, url);
  }

  const attempts = event.attempts + 1;
  const schedule = ctx.config.webhooks.retrySchedule;
  let eventStatus: AttemptOutcome['eventStatus'] = 'delivered';
  let nextAttemptAt: string | null = null;
  if (!ok) {
    const retries = !NO_RETRY.has(event.event) && attempts <= schedule.length;
    eventStatus = retries ? 'pending' : 'failed';
    if (retries) {
      let delay = retryDelay(schedule[attempts - 1]);
      const asked = res.status === 429 || res.status === 503 ? retryAfterMs(res.headers['retry-after'], finishedAt) : null;
      if (asked !== null && asked > delay) delay = asked;
      nextAttemptAt = new Date(finishedAt.getTime() + delay).toISOString();
    }
  }
  // The log line and the event's new state are written together (one commit per attempt).
  await withTransaction(ctx.db, async (trx) => {
    await insertDelivery(trx, {
      id: deliveryId,
      eventId: event.id,
      workspaceId: event.workspaceId,
      articleId: event.articleId,
      event: event.event,
      attempt: event.attempts + 1,
      url: connector.url!,
      ok,
      statusCode: res.status,
      durationMs: res.durationMs,
      error,
      responseExcerpt: res.body || null,
      createdAt: at,
    });
    await settleEvent(trx, event.id, { status: eventStatus, attempts, nextAttemptAt: nextAttemptAt ?? undefined, lastStatus: res.status, lastError: error, now: at });
  });
  await updateHealth(ctx, connector, { ok, status: res.status, event: event.event, at: finishedAt });
  if (!ok) ctx.log.warn({ eventId: event.id, deliveryId, event: event.event, status: res.status, error, nextAttemptAt }, 'webhook delivery failed');
  return { deliveryId, ok, status: res.status, error, durationMs: res.durationMs, response: res.body, eventStatus, nextAttemptAt };
}

function describeStatus(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  return `HTTP ${status}`;
}

/** `{ "url": "..." }` or `{ "publishedUrl": "..." }` with an http(s) URL, else null. */
function publishedUrlFrom(body: string): string | null {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const url = typeof json?.url === 'string' ? json.url : typeof json?.publishedUrl === 'string' ? json.publishedUrl : null;
    return url && /^https?:\/\//i.test(url) && url.length <= 2000 ? url : null;
  } catch {
    return null;
  }
}

/**
 * Connector health (decisions.md, Status handling): 410 Gone disables it at once; a webhook
 * whose every delivery failed for webhooks.disableAfter (5 days) is disabled and the operator told.
 */
async function updateHealth(ctx: Ctx, connector: Connector, r: { ok: boolean; status: number | null; event: string; at: Date }): Promise<void> {
  if (r.ok && !connector.failingSince) return; // the common case: healthy and still healthy, no query
  const current = (await findConnector(ctx.db, connector.workspaceId, 'webhook')) ?? connector;
  if (current.id !== connector.id) return;
  const at = r.at.toISOString();
  if (r.ok) {
    if (current.failingSince) await updateConnector(ctx.db, current.id, { failing_since: null, updated_at: at });
    return;
  }
  if (r.status === 410) {
    const reason = `The receiver answered 410 Gone at ${at}: deliveries stopped. Run svc webhook enable once it accepts them again.`;
    await updateConnector(ctx.db, current.id, { enabled: false, disabled_reason: reason, updated_at: at });
    ctx.log.error({ connectorId: current.id, workspaceId: current.workspaceId }, reason);
    return;
  }
  if (r.event === 'test') return; // a failed test says nothing about real deliveries
  if (!current.failingSince) {
    await updateConnector(ctx.db, current.id, { failing_since: at, updated_at: at });
  } else if (r.at.getTime() - Date.parse(current.failingSince) >= ctx.config.webhooks.disableAfter && current.enabled) {
    const reason = `Every delivery failed since ${current.failingSince}: the webhook was disabled at ${at}. Fix the receiver, then run svc webhook enable.`;
    await updateConnector(ctx.db, current.id, { enabled: false, disabled_reason: reason, updated_at: at });
    ctx.log.error({ connectorId: current.id, workspaceId: current.workspaceId }, reason);
  }
}
