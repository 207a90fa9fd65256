import type { Ctx } from '../context.js';
import { type Connector, findConnector, updateConnector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import type { Queryable, Trx } from '../db/connect.js';
import { insertRows } from '../db/insert-rows.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import { postOnce } from './http-post.js';
import { type LeaseRef, type Settlement, settle } from './lease-store.js';
import { buildPayload } from './payload.js';
import { activeSecrets } from './secrets.js';
import { signatureHeader } from './sign.js';
import { type DeliveryRow, type EventRow, deliveryRow } from './store.js';
import { redactSecrets } from '../lib/redact.js';

export interface AttemptOutcome {
  deliveryId: string;
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  response: string;
  eventStatus: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: string | null;
  /** False when the lease was lost before the result could be written: nothing was recorded. */
  recorded: boolean;
}

/** Events answered at once to the person who asked: never retried (decisions.md, Retries). */
export const ANSWERED_AT_ONCE = new Set(['test', 'article.unpublished']);

/** Runs in the transaction that records the attempt, only when it is recorded (the unpublish's take-down). */
export type OnRecorded = (trx: Trx, outcome: AttemptOutcome) => Promise<void>;

/** An attempt made (the receiver answered, or not) and not yet recorded. */
export interface SentAttempt {
  event: EventRow;
  connector: Connector;
  lease: LeaseRef;
  outcome: AttemptOutcome;
  next: ReturnType<typeof nextState>;
  /** The publishedUrl the receiver answered, to store (publish and update only). */
  url: string | null;
  finishedAt: Date;
}

/** The body of an event written without its HTML (unpublish, delete, test); null when it cannot be rendered (sent with body.html null). */
async function renderedOf(ctx: Ctx, event: EventRow): Promise<{ html: string; words: number } | null | undefined> {
  const { bodyMarkdown, bodyHtml, slug } = event.snapshot.article;
  if (bodyMarkdown === null || bodyHtml !== undefined) return undefined;
  try {
    // The event's lease runs meanwhile, sized for the POST's timeouts: no waiting for a core past the deadline.
    return await ctx.renderer.markdown(bodyMarkdown, slug ?? event.articleId, { holdingLock: true });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    ctx.log.warn({ eventId: event.id, code: err.code }, `webhook event ${event.id}: the body is sent without html: ${err.message}`);
    return null;
  }
}

/** Payload, signature over the exact bytes, one POST. `publishedUrl`: the publication's now, undefined when there is none. */
export async function sendAttempt(ctx: Ctx, event: EventRow, connector: Connector, lease: LeaseRef, publishedUrl: string | null | undefined, signal?: AbortSignal): Promise<SentAttempt> {
  const now = ctx.clock.now();
  const deliveryId = newId('dlv');
  const rendered = await renderedOf(ctx, event);
  const payload = buildPayload({
    event: event.event,
    eventId: event.id,
    deliveryId,
    deliveredAt: now.toISOString(),
    snapshot: event.snapshot,
    publishedUrl: publishedUrl === undefined ? undefined : (publishedUrl ?? event.snapshot.publication.publishedUrl),
    rendered,
  });
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const headers = {
    'Content-Type': 'application/json',
    'X-Service-Signature': signatureHeader(body, activeSecrets(connector, now), Math.floor(now.getTime() / 1000)),
    'X-Service-Event': event.event,
    'X-Service-Delivery': deliveryId,
    'X-Service-Event-Id': event.id,
  };
  const res = await postOnce(connector.url!, body, headers, ctx.config.webhooks, signal);
  const ok = res.status !== null && res.status >= 200 && res.status < 300;
  const error = ok ? null : (res.error ?? describeStatus(res.status!));
  const finishedAt = ctx.clock.now();
  const next = nextState(ctx, event, { ok, status: res.status, retryAfter: res.headers['retry-after'], at: finishedAt });
  const outcome: AttemptOutcome = { deliveryId, ok, status: res.status, error, durationMs: res.durationMs, response: res.body, eventStatus: next.status, nextAttemptAt: next.nextAttemptAt ?? null, recorded: false };
  const url = ok && publishedUrl !== undefined && (event.event === 'article.published' || event.event === 'article.updated') ? publishedUrlFrom(res.body) : null;
  return { event, connector, lease, outcome, next, url, finishedAt };
}

/** Record attempts (one, or the worker's batch) in one transaction: those whose lease is still theirs settle and are logged; the others record nothing. */
export async function recordAttempts(ctx: Ctx, list: SentAttempt[], onRecorded?: OnRecorded): Promise<void> {
  try {
    await withTransaction(ctx.db, async (trx) => {
      // Tried again after a PostgreSQL conflict: what an earlier try marked went with its rollback.
      for (const s of list) s.outcome.recorded = false;
      // Each is judged at the moment its answer came: the token decides.
      const rows = list.map((s) => ({ ...s.next, id: s.event.id, lease: s.lease, at: s.finishedAt.toISOString(), lastStatus: s.outcome.status, lastError: s.outcome.error }));
      const recorded = new Set(await settle(trx, rows));
      const done = list.filter((_, i) => recorded.has(rows[i]));
      await insertRows(trx, 'webhook_deliveries', done.map(logLine).map(deliveryRow));
      for (const s of done) {
        if (s.url) await publications.setPublishedUrl(trx, s.event.articleId, s.event.connectorId, s.url);
        // In the settle's transaction: a 410 disables the webhook before anyone may claim the retry.
        if (!s.outcome.ok) await updateHealth(ctx, trx, s.connector, { ok: false, status: s.outcome.status, event: s.event.event, at: s.finishedAt });
        s.outcome.recorded = true;
        await onRecorded?.(trx, s.outcome);
      }
    });
  } catch (err) {
    for (const s of list) s.outcome.recorded = false;
    throw err;
  }
  for (const { event, connector, outcome, finishedAt } of list) {
    const { deliveryId, ok, status, error } = outcome;
    if (!outcome.recorded) {
      ctx.log.warn({ eventId: event.id, deliveryId, event: event.event }, 'webhook attempt outlived its lease: nothing recorded (another holder has the event)');
    } else {
      // A failure's health was updated in the settle's transaction.
      if (ok) await updateHealth(ctx, ctx.db, connector, { ok, status, event: event.event, at: finishedAt });
      else ctx.log.warn({ eventId: event.id, deliveryId, event: event.event, status, error, nextAttemptAt: outcome.nextAttemptAt }, 'webhook delivery failed');
    }
    ctx.metrics.webhookDeliveries.inc({ outcome: !outcome.recorded ? 'lease_lost' : outcome.eventStatus === 'pending' ? 'retry' : outcome.eventStatus });
    ctx.events.emit('webhooks.attempted', { eventId: event.id, deliveryId, recorded: outcome.recorded });
  }
}

const logLine = ({ event, connector, outcome, finishedAt }: SentAttempt): DeliveryRow => ({
  id: outcome.deliveryId,
  eventId: event.id,
  workspaceId: event.workspaceId,
  articleId: event.articleId,
  event: event.event,
  attempt: event.attempts + 1,
  url: connector.url!,
  ok: outcome.ok,
  statusCode: outcome.status,
  durationMs: outcome.durationMs,
  // What the receiver answered is quoted, never an issued secret it echoed (lib/redact.ts).
  error: outcome.error && redactSecrets(outcome.error),
  responseExcerpt: outcome.response ? redactSecrets(outcome.response) : null,
  createdAt: finishedAt.toISOString(),
});

/** What the event becomes: retries follow webhooks.retrySchedule from retryFrom, with jitter; a longer Retry-After on 429/503 is honoured. */
function nextState(ctx: Ctx, event: EventRow, r: { ok: boolean; status: number | null; retryAfter: string | string[] | undefined; at: Date }): Omit<Settlement, 'lastStatus' | 'lastError'> & { status: AttemptOutcome['eventStatus'] } {
  const attempts = event.attempts + 1;
  if (r.ok) return { status: 'delivered', attempts };
  const schedule = ctx.config.webhooks.retrySchedule;
  const n = attempts - event.retryFrom;
  if (ANSWERED_AT_ONCE.has(event.event) || n > schedule.length) return { status: 'failed', attempts };
  // Up to 10 % jitter (decisions.md), so receivers are not hit in lockstep.
  let delay = Math.round(schedule[n - 1] * (1 + Math.random() * 0.1));
  const asked = r.status === 429 || r.status === 503 ? retryAfterMs(r.retryAfter, r.at) : null;
  if (asked !== null && asked > delay) delay = asked;
  return { status: 'pending', attempts, nextAttemptAt: new Date(Math.min(r.at.getTime() + delay, LATEST_RETRY)).toISOString() };
}

// The latest retry written: times are ISO strings compared as strings, and a later one is "+010000-..." (before
// every 4-digit year: due at once) or, past JavaScript's last date, no date at all (toISOString throws).
const LATEST_RETRY = Date.parse('9999-12-31T23:59:59.999Z');

/** Retry-After as milliseconds from `now`: delta seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(header: string | string[] | undefined, now: Date): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now.getTime());
}

const describeStatus = (status: number): string => `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`;

/** `{ "url": "..." }` or `{ "publishedUrl": "..." }` with an http(s) URL, else null. */
function publishedUrlFrom(body: string): string | null {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const url = typeof json?.url === 'string' ? json.url : typeof json?.publishedUrl === 'string' ? json.publishedUrl : null;
    // No whitespace or control character (PostgreSQL's text refuses a NUL): a URL, or nothing stored.
    return url && /^https?:\/\/[^\s\u0000-\u001f\u007f]+$/i.test(url) && url.length <= 2000 ? url : null;
  } catch {
    return null;
  }
}

/** Connector health (decisions.md, Status handling): 410 Gone disables it at once, as does every delivery failing for webhooks.disableAfter. */
async function updateHealth(ctx: Ctx, db: Queryable, connector: Connector, r: { ok: boolean; status: number | null; event: string; at: Date }): Promise<void> {
  if (r.ok && !connector.failingSince) return; // the common case: healthy and still healthy, no query
  const current = (await findConnector(db, connector.workspaceId, 'webhook')) ?? connector;
  if (current.id !== connector.id) return;
  const at = r.at.toISOString();
  if (r.ok) {
    if (current.failingSince) await updateConnector(db, current.id, { failing_since: null, updated_at: at });
    return;
  }
  const disable = async (reason: string) => {
    await updateConnector(db, current.id, { enabled: false, disabled_reason: reason, updated_at: at });
    ctx.log.error({ connectorId: current.id, workspaceId: current.workspaceId }, reason);
  };
  if (r.status === 410) return disable(`The receiver answered 410 Gone at ${at}: deliveries stopped. Run svc webhook enable once it accepts them again.`);
  if (r.event === 'test') return; // a failed test says nothing about real deliveries
  if (!current.failingSince) await updateConnector(db, current.id, { failing_since: at, updated_at: at });
  else if (r.at.getTime() - Date.parse(current.failingSince) >= ctx.config.webhooks.disableAfter && current.enabled) {
    await disable(`Every delivery failed since ${current.failingSince}: the webhook was disabled at ${at}. Fix the receiver, then run svc webhook enable.`);
  }
}
