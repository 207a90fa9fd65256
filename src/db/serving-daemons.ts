import type { Config } from '../config/schema.js';
import type { Db } from './connect.js';
import { liveDaemons } from './daemon-records.js';
import { sqliteDaemonServing } from './locks.js';

/**
 * How long after its last heartbeat a PostgreSQL daemon still counts as serving: at least a minute, whatever this
 * process's webhooks.heartbeatStaleAfter, since a daemon may beat on longer settings than the command asking.
 */
const SERVING_FLOOR_MS = 60_000;

/**
 * The daemons serving this database now, each described for a person. On SQLite the one holding its daemon lock
 * (exact: the lock ends with the process; `svc serve` itself holds it and is not counted); on PostgreSQL every holder
 * whose heartbeat (daemon_heartbeats, written every few seconds, deleted by a clean stop) is recent: a daemon, or a
 * command waiting for its one delivery, which writes as a daemon does.
 */
export async function servingDaemons(db: Db, config: Pick<Config, 'database' | 'dataDir' | 'stateDirs' | 'webhooks'>): Promise<string[]> {
  const { database } = config;
  if (database.client !== 'pg') {
    if (!(await sqliteDaemonServing(database.filename))) return [];
    const records = liveDaemons(config, 'same');
    return records.length > 0 ? records.map((r) => `svc serve (pid ${r.pid}, since ${r.since})`) : [`the svc daemon holding ${database.filename}-daemon.lock`];
  }
  if (!(await db.schema.hasTable('daemon_heartbeats'))) return [];
  const now = Date.now();
  const since = new Date(now - Math.max(config.webhooks.heartbeatStaleAfter, SERVING_FLOOR_MS)).toISOString();
  const rows: Array<Record<string, string>> = await db('daemon_heartbeats').where('seen_at', '>=', since).select('id', 'pid', 'host', 'seen_at');
  return rows.map((r) => `${r.id} (pid ${r.pid} on ${r.host}, last heartbeat ${Math.max(0, Math.round((now - Date.parse(r.seen_at)) / 1000))} s ago)`);
}
