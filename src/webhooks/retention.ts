import type { Ctx } from '../context.js';
import { type BatchLimits, type Sweep, type SweepCursor, sweep } from '../db/batched-delete.js';
import type { Db } from '../db/connect.js';
import { iso } from '../lib/clock.js';

const SETTLED = ['delivered', 'failed', 'cancelled'];

/** Where the last purge stopped in each table; a job keeps one, so a backlog is walked once. */
export type RetentionCursors = Partial<Record<'events' | 'deliveries' | 'snapshots', SweepCursor | null>>;

/**
 * Delete settled events and logs past `webhooks.retention`, never an article's newest settled or delivered event (redelivery's order check),
 * and at once the snapshots of events a later delivered one superseded (never sent again); a batch from `cursors`.
 */
export async function purgeSettledWebhooks(ctx: Ctx, cursors: RetentionCursors = {}, limits?: BatchLimits): Promise<{ events: number; deliveries: number; snapshots: number }> {
  const before = iso(new Date(ctx.clock.now().getTime() - ctx.config.webhooks.retention));
  const db = ctx.db;
  const events = await sweep(db, eventSweep(db, before), cursors.events ?? null, limits);
  cursors.events = events.cursor;
  const deliveries = await sweep(db, deliverySweep(db, before), cursors.deliveries ?? null, limits);
  cursors.deliveries = deliveries.cursor;
  const snapshots = await sweep(db, snapshotSweep(db), cursors.snapshots ?? null, limits);
  cursors.snapshots = snapshots.cursor;
  return { events: events.deleted, deliveries: deliveries.deleted, snapshots: snapshots.deleted };
}

/** A later event of the same article to the same webhook than the event `e` names, in one of these states. */
const later = (db: Db, e: string, statuses: string[]) =>
  db({ n: 'webhook_events' })
    .select(db.raw('1'))
    .whereRaw(`n.connector_id = ${e}.connector_id AND n.article_id = ${e}.article_id AND n.seq > ${e}.seq`)
    .whereIn('n.status', statuses);

/** Every event in seq order (its primary key); deletable when past the retention and no rule keeps it. */
export function eventSweep(db: Db, before: string): Sweep {
  return {
    table: 'webhook_events',
    order: ['seq'],
    key: 'seq',
    deletable: (q) =>
      q
        .where('updated_at', '<', before)
        .whereIn('status', SETTLED)
        .whereExists(later(db, 'webhook_events', SETTLED))
        .andWhere((w) => w.whereNot('status', 'delivered').orWhereExists(later(db, 'webhook_events', ['delivered']))),
  };
}

/**
 * Snapshots by event id; deletable once a later event of the article was delivered to the webhook: the event is settled (the
 * order holds) and is never sent again (redelivery refuses it), so its article copy, up to a few MB, is dead weight. Its row and
 * log stay for webhooks.retention. Every republish writes a snapshot: kept for the retention, they filled disks.
 */
function snapshotSweep(db: Db): Sweep {
  return {
    table: 'webhook_event_snapshots',
    order: ['event_id'],
    key: 'event_id',
    deletable: (q) =>
      q.whereExists(
        db({ e: 'webhook_events' })
          .select(db.raw('1'))
          .whereRaw('e.id = webhook_event_snapshots.event_id')
          .whereIn('e.status', SETTLED)
          .whereExists(later(db, 'e', ['delivered'])),
      ),
  };
}

/** Delivery log entries past the retention, oldest first by the index on (created_at, id); deletable when their event is settled. */
export function deliverySweep(db: Db, before: string): Sweep {
  return {
    table: 'webhook_deliveries',
    order: ['created_at', 'id'],
    key: 'id',
    walk: (q) => q.where('created_at', '<', before),
    deletable: (q) =>
      q.whereExists(db({ e: 'webhook_events' }).select(db.raw('1')).whereRaw('e.id = webhook_deliveries.event_id').whereIn('e.status', SETTLED)),
  };
}
