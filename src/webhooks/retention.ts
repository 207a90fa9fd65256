import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import { type BatchLimits, deleteInBatches } from '../db/batched-delete.js';
import type { Db } from '../db/connect.js';
import { iso } from '../lib/clock.js';

const SETTLED = ['delivered', 'failed', 'cancelled'];

/**
 * Delete settled webhook events (delivered, failed, cancelled) and delivery log entries of
 * settled events, older than `webhooks.retention`. Never a pending event (it still waits for its
 * receiver, and the article's later events wait for it), nor its log, and never the newest
 * settled nor the newest delivered event of an article at its webhook: a redelivery checks its
 * order against those (a kept older event is still refused when a later one was delivered). A
 * deleted event takes its delivery log entries with it (ON DELETE CASCADE).
 */
export async function purgeSettledWebhooks(ctx: Ctx, limits?: BatchLimits): Promise<{ events: number; deliveries: number }> {
  const before = iso(new Date(ctx.clock.now().getTime() - ctx.config.webhooks.retention));
  const db = ctx.db;
  const events = await deleteInBatches(db, 'webhook_events', 'seq', (size) => deletableEvents(db, before, size), (q) => settledBefore(q, 'webhook_events', before), limits);
  const deliveries = await deleteInBatches(db, 'webhook_deliveries', 'id', (size) => deletableDeliveries(db, before, size), (q) => q, limits);
  return { events, deliveries };
}

const settledBefore = (q: Knex.QueryBuilder, alias: string, before: string) => q.whereIn(`${alias}.status`, SETTLED).andWhere(`${alias}.updated_at`, '<', before);

/** The seqs of up to `size` events past the retention that no rule keeps (by the index on status, updated_at). */
export function deletableEvents(db: Db, before: string, size: number): Knex.QueryBuilder {
  const later = (statuses: string[]) =>
    db({ n: 'webhook_events' })
      .select(db.raw('1'))
      .whereRaw('n.connector_id = e.connector_id AND n.article_id = e.article_id AND n.seq > e.seq')
      .whereIn('n.status', statuses);
  return settledBefore(db({ e: 'webhook_events' }).select('e.seq'), 'e', before)
    .whereExists(later(SETTLED))
    .andWhere((q) => q.whereNot('e.status', 'delivered').orWhereExists(later(['delivered'])))
    .limit(size);
}

/** The ids of up to `size` delivery log entries past the retention whose event is settled (by the index on created_at). */
export function deletableDeliveries(db: Db, before: string, size: number): Knex.QueryBuilder {
  return db({ d: 'webhook_deliveries' })
    .select('d.id')
    .where('d.created_at', '<', before)
    .whereExists(db({ e: 'webhook_events' }).select(db.raw('1')).whereRaw('e.id = d.event_id').whereIn('e.status', SETTLED))
    .limit(size);
}
