import type { Db } from '../db/connect.js';
import { preparedRows } from '../db/prepared.js';
import type { DueRef, LeaseRef, LeaseTime } from './lease-store.js';

// The worker's find-due and claim on PostgreSQL as named prepared statements (one text whatever
// the number of ids: arrays, not a parameter per id): each pooled connection parses and plans them
// once, where knex built and PostgreSQL planned them anew on every claim (find-due: 1.6 ms of
// planning for 0.2 ms of execution). The same conditions as lease-store.ts's knex versions.

/** leaseVoid of lease-store.ts, on the rows of `t`: nobody holds it, it ran out, or its holder's heartbeat is stale. */
const leaseVoid = (t: string, now: string, freshSince: string) =>
  `(${t}.locked_until is null or ${t}.locked_until < ${now} or exists (select 1 from daemon_heartbeats as h where h.id = ${t}.locked_by and h.seen_at < ${freshSince}))`;

// An event is due only as its article's first pending event for its receiver (per-article order).
// That rule is a window over the pending rows, not an anti-join: without statistics (a database
// minutes old, a burst far past what ANALYZE last saw) PostgreSQL estimated one pending row and
// ran the anti-join as a scan of every pending event per pending event, 176 ms a call at 1,000
// queued; a window is one pass over the pending rows whatever the plan.
const DUE_SQL =
  'select id, connector_id from (select e.id, e.connector_id, e.seq, row_number() over (partition by e.connector_id order by e.seq) as nth ' +
  'from (select w.id, w.connector_id, w.seq, w.next_attempt_at, w.locked_until, w.locked_by, ' +
  'row_number() over (partition by w.connector_id, w.article_id order by w.seq) as turn ' +
  "from webhook_events as w where w.status = 'pending' and w.connector_id <> all($4::text[])) as e " +
  'join connectors as c on c.id = e.connector_id ' +
  `where e.turn = 1 and e.next_attempt_at <= $1 and ${leaseVoid('e', '$1', '$2')} and c.enabled = true and e.id <> all($3::text[])) as d ` +
  'where nth <= $5 order by seq limit $6';

export async function dueEventsPg(db: Db, at: LeaseTime, limit: number, exclude: string[], skipConnectors: string[], perConnector: number): Promise<DueRef[]> {
  const rows = await preparedRows(db, 'svc_webhooks_due', DUE_SQL, [at.now, at.freshSince, exclude, skipConnectors, perConnector, limit]);
  return rows.map(([id, connectorId]) => ({ id: id as string, connectorId: connectorId as string }));
}

/** The columns of webhook_events a claim returns (what toEvent reads), then the publication's count and URL. */
const EVENT_COLUMNS = [
  'seq', 'id', 'workspace_id', 'connector_id', 'article_id', 'event', 'snapshot', 'status', 'attempts', 'next_attempt_at', 'locked_until',
  'locked_by', 'lease_token', 'retry_from', 'last_status', 'last_error', 'created_at', 'updated_at', 'delivered_at',
];
// By article only (the primary key's first column: a lookup of an article's few publications
// whatever the statistics), the receiver's one kept by FILTER: given both columns, a database
// without statistics chose the connector_id index and read every publication of the receiver,
// twice per claimed event.
const publication = (what: string) => `(select ${what} filter (where pub.connector_id = e.connector_id) from publications as pub where pub.article_id = e.article_id)`;

const CLAIM_SQL =
  'update webhook_events as e set locked_by = $1, lease_token = $2, locked_until = $3 ' +
  `where e.id = any($4::text[]) and e.status = 'pending' and e.next_attempt_at <= $5 and ${leaseVoid('e', '$5', '$6')} ` +
  `returning ${EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')}, ${publication('count(*)')} as pub_count, ${publication('max(published_url)')} as pub_url`;

/** The rows taken, by column name (as knex returns them). */
export async function claimEventsPg(db: Db, ids: string[], lease: LeaseRef, at: LeaseTime): Promise<Array<Record<string, unknown>>> {
  const rows = await preparedRows(db, 'svc_webhooks_claim', CLAIM_SQL, [lease.holderId, lease.token, lease.until, ids, at.now, at.freshSince]);
  const names = [...EVENT_COLUMNS, 'pub_count', 'pub_url'];
  return rows.map((r) => Object.fromEntries(names.map((c, i) => [c, r[i]])));
}
