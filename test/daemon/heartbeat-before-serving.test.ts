import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { poll } from '../helpers/poll.js';
import { freePort, spawnServe } from '../helpers/serve.js';

// On SQLite the daemon lock tells the upgrade guard that a daemon serves; on PostgreSQL only its heartbeat row does.
describe.skipIf(!PG_URL)('svc serve on PostgreSQL: the heartbeat row before serving (the real binary)', () => {
  it('writes its daemon_heartbeats row before it serves: while that write waits, it answers 503 starting; once ready, the row is there', async () => {
    const { dir, env } = await freshEnv({}, { migrated: true });
    // Two sessions: one holds the table, the other watches (a transaction sees pg_stat_activity as at its first read).
    const [db, watch] = [new pg.Client({ connectionString: env.SVC_DATABASE_URL }), new pg.Client({ connectionString: env.SVC_DATABASE_URL })];
    for (const c of [db, watch]) {
      await c.connect();
      onTestFinished(() => c.end());
    }
    // Inserts into daemon_heartbeats wait while this transaction holds the table; reads go on (the start's migration check).
    await db.query('BEGIN');
    await db.query('LOCK TABLE daemon_heartbeats IN EXCLUSIVE MODE');

    const port = await freePort();
    const daemon = spawnServe({ ...env, SVC_PORT: String(port) }, dir);
    const waiting = async () =>
      Number(
        (
          await watch.query(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query ILIKE 'insert into "daemon_heartbeats"%'`,
          )
        ).rows[0].n,
      );
    expect(await poll(waiting, (n) => n > 0)).toBe(1);
    // Its first heartbeat is being written: it does not serve yet.
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'starting' });
    expect(daemon.stdout()).not.toContain('listening');

    await db.query('COMMIT');
    await daemon.ready;
    const rows = (await db.query('SELECT kind, pid FROM daemon_heartbeats')).rows;
    expect(rows).toContainEqual({ kind: 'daemon', pid: daemon.child.pid });
  });
});
