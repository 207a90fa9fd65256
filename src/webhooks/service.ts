import type { Ctx } from '../context.js';
import { type Connector, deleteConnector, ensureConnector, findConnector, updateConnector } from '../connectors/store.js';
import { parseDuration } from '../config/duration.js';
import type { Queryable } from '../db/connect.js';
import { withTransaction } from '../db/tx.js';
import { AppError, badRequest, notFound, usageError } from '../errors.js';
import type { Workspace } from '../workspaces/types.js';
import type { AttemptOutcome } from './attempt.js';
import { daemonStatus, leases } from './health.js';
import { leaseTime } from './lease.js';
import { reopenEvent } from './lease-store.js';
import { deliverNow, outOfOrder } from './deliver-now.js';
import { sampleSnapshot } from './payload.js';
import { SECRET_PATTERN, activeSecrets, generateSecret, maskSecret } from './secrets.js';
import { type EventRow, findDelivery, findEvent, insertEvent, listDeliveries, makeQueueDue, neighbour, queueOf } from './store.js';
import { checkTargetResolves, parseTargetUrl } from './targets.js';

/** The webhook connector as operators see it; the secret only when asked (and once after set/rotate). */
export async function describeWebhook(ctx: Ctx, ws: Workspace, opts: { revealSecret?: boolean } = {}) {
  const c = await requireWebhook(ctx, ws);
  const queue = await queueOf(ctx.db, c.id);
  const rotating = activeSecrets(c, ctx.clock.now()).length > 1;
  return {
    workspace: ws.name,
    url: c.url,
    enabled: c.enabled,
    disabledReason: c.disabledReason,
    failingSince: c.failingSince,
    secret: opts.revealSecret ? c.signingSecret : maskSecret(c.signingSecret),
    previousSecretUntil: rotating ? c.previousSecretUntil : null,
    events: queue.counts,
    oldestPendingAt: queue.oldestPending,
    daemon: await daemonStatus(ctx),
    /** Events in flight: who holds each (which daemon held what when one was killed). */
    leases: await leases(ctx, c.id),
  };
}

/** Create or change the workspace's webhook; a new one gets a generated secret unless one is given, an existing one keeps its own. */
export async function setWebhook(ctx: Ctx, ws: Workspace, input: { url: string; secret?: string; generateSecret?: boolean }): Promise<{ connector: Connector; secret: string | null; resolved: boolean }> {
  if (input.secret !== undefined && input.generateSecret) throw usageError('Pass --secret or --generate-secret, not both');
  if (input.secret !== undefined && !SECRET_PATTERN.test(input.secret)) {
    throw badRequest('invalid_secret', 'A signing secret is "whsec_" followed by 32 to 194 letters and digits', { hint: 'Or let svc make one: --generate-secret' });
  }
  const url = parseTargetUrl(input.url, ctx.config.webhooks);
  const { resolved } = await checkTargetResolves(url, ctx.config.webhooks);
  const now = ctx.clock.now().toISOString();
  const existing = await findConnector(ctx.db, ws.id, 'webhook');
  const newSecret = input.secret ?? (input.generateSecret || !existing?.signingSecret ? generateSecret() : null);
  const fields = { url: url.toString(), updated_at: now, ...(newSecret ? { signing_secret: newSecret, previous_secret: null, previous_secret_until: null } : {}) };
  if (existing) await updateConnector(ctx.db, existing.id, fields);
  else await ensureConnector(ctx.db, ws.id, 'webhook', now, fields);
  return { connector: (await findConnector(ctx.db, ws.id, 'webhook'))!, secret: newSecret, resolved };
}

/** Resume deliveries: every queued event is due at once, with a fresh retry budget (the old one may have been spent on a receiver that was down). */
export async function enableWebhook(ctx: Ctx, ws: Workspace): Promise<Connector> {
  const c = await requireWebhook(ctx, ws);
  const now = ctx.clock.now().toISOString();
  await withTransaction(ctx.db, async (trx) => {
    await updateConnector(trx, c.id, { enabled: true, disabled_reason: null, failing_since: null, updated_at: now });
    await makeQueueDue(trx, c.id, now);
  });
  ctx.events.emit('webhooks.enqueued', { workspaceId: ws.id });
  return (await findConnector(ctx.db, ws.id, 'webhook'))!;
}

export async function disableWebhook(ctx: Ctx, ws: Workspace): Promise<Connector> {
  const c = await requireWebhook(ctx, ws);
  const now = ctx.clock.now().toISOString();
  await updateConnector(ctx.db, c.id, { enabled: false, disabled_reason: `Disabled by an operator at ${now}`, updated_at: now });
  return (await findConnector(ctx.db, ws.id, 'webhook'))!;
}

/** Remove the webhook with its queued events, delivery log and publications. */
export async function removeWebhook(ctx: Ctx, ws: Workspace): Promise<void> {
  await deleteConnector(ctx.db, (await requireWebhook(ctx, ws)).id);
}

/** New secret; the old one keeps signing (a second v1) for `grace`. `confirm` is asked once the grace is valid, before the secret changes. */
export async function rotateSecret(ctx: Ctx, ws: Workspace, grace = '24h', confirm?: () => Promise<void>): Promise<{ secret: string; previousSecretUntil: string | null }> {
  const c = await requireWebhook(ctx, ws);
  const ms = parseDuration(grace);
  if (ms === undefined) throw usageError(`--grace takes a duration such as 30m, 24h or 7d, not "${grace}"`);
  // A grace beyond a year is a typo, and far enough out it is not even a valid date.
  if (ms > 365 * 86_400_000) throw usageError(`--grace is at most 365d, not "${grace}"`);
  await confirm?.();
  const now = ctx.clock.now();
  const secret = generateSecret();
  const until = ms > 0 ? new Date(now.getTime() + ms).toISOString() : null;
  await updateConnector(ctx.db, c.id, { signing_secret: secret, previous_secret: until ? c.signingSecret : null, previous_secret_until: until, updated_at: now.toISOString() });
  return { secret, previousSecretUntil: until };
}

/** Send a `test` event now from this process (not via the daemon) and report the receiver's answer. */
export async function sendTest(ctx: Ctx, ws: Workspace): Promise<AttemptOutcome & { eventId: string; url: string }> {
  const c = await requireWebhook(ctx, ws);
  const r = (await deliverNow(ctx, {
    earlier: 'none', // a test is about the receiver, not an article: it goes out at once
    async decide(trx, lease) {
      const now = ctx.clock.now().toISOString();
      const id = await insertEvent(trx, { workspaceId: ws.id, connectorId: c.id, articleId: 'art_sample', event: 'test', snapshot: sampleSnapshot(ws, now), now, lease });
      return { eventId: id, connector: c };
    },
  }))!;
  return { ...r, eventId: r.event.id, url: c.url! };
}

export const listWebhookDeliveries = (ctx: Ctx, ws: Workspace, f: Parameters<typeof listDeliveries>[2]) => listDeliveries(ctx.db, ws.id, f);

/** Send an event again now from this process, by its id or a delivery's, in its article's order; a failure starts a fresh retry budget. */
export async function redeliver(ctx: Ctx, ws: Workspace, ref: string): Promise<AttemptOutcome & { eventId: string; event: string; attempt: number }> {
  const delivery = ref.startsWith('dlv_') ? await findDelivery(ctx.db, ref) : undefined;
  const found = await findEvent(ctx.db, delivery?.eventId ?? ref);
  if (!found || found.workspaceId !== ws.id) throw notFound('webhook event or delivery', ref, { hint: `List deliveries with: svc webhook deliveries --workspace ${ws.name}` });
  if (found.event === 'article.unpublished') {
    throw badRequest('not_redeliverable', 'An article.unpublished is only sent by unpublishing', {
      hint: `Run svc articles unpublish ${found.articleId} --workspace ${ws.name} --force-notify: it sends a new article.unpublished, and takes the article down on a 2xx if svc still has it published.`,
    });
  }
  const c = await requireWebhook(ctx, ws);
  if (c.id !== found.connectorId) throw badRequest('not_redeliverable', 'That event was sent to a webhook that has since been removed');
  if (!c.enabled) throw badRequest('webhook_disabled', `The webhook is disabled: ${c.disabledReason ?? 'no reason recorded'}`, { hint: 'Run svc webhook enable first.' });
  const r = (await deliverNow(ctx, {
    earlier: found.event === 'test' ? 'none' : 'refuse',
    async decide(trx, lease) {
      const event = (await findEvent(trx, found.id))!;
      if (event.event !== 'test') await refuseOutOfOrder(trx, event);
      // Removed once a later event was delivered (retention.ts): that one may be on its way again since, this one cannot be.
      if (!event.snapshot) throw new AppError('superseded', 409, 'A later event of this article was delivered after this one, so its copy of the article was removed', { hint: 'Publish the article again to send its current state.' });
      if (!(await reopenEvent(trx, event.id, lease, leaseTime(ctx)))) throw new AppError('busy', 409, 'That event is being delivered right now; try again in a moment');
      return { eventId: event.id, connector: c };
    },
  }))!;
  return { ...r, eventId: r.event.id, event: r.event.event, attempt: r.event.attempts + 1 };
}

/** A redelivery keeps the article's order (decisions.md, Webhook order). */
async function refuseOutOfOrder(trx: Queryable, event: EventRow): Promise<void> {
  const later = await neighbour(trx, event, 'after', 'delivered');
  if (later) {
    throw new AppError('superseded', 409, `A later event of this article (${later.event} ${later.id}) was delivered after this one; sending this one again would put an older state back on the receiver`, {
      hint: 'Publish the article again to send its current state.',
    });
  }
  const earlier = await neighbour(trx, event, 'before', 'pending');
  if (earlier) throw outOfOrder(earlier);
}

async function requireWebhook(ctx: Ctx, ws: Workspace): Promise<Connector> {
  const c = await findConnector(ctx.db, ws.id, 'webhook');
  if (!c) throw notFound('webhook', undefined, { hint: `Set one first: svc webhook set --workspace ${ws.name} --url https://...` });
  return c;
}
