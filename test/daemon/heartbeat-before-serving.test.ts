import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/lib/log.js';
import { PG_URL, freshConfig, freshEnv } from '../helpers/env.js';
import { seedWebhookArticle } from '../helpers/seed.js';
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

  it('does nothing else of the daemon before that row is written: a start whose first heartbeat fails has published no scheduled article', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await createApp({ config, log: createLogger('silent') });
    onTestFinished(() => app.close());
    const { article } = await seedWebhookArticle(app);
    await app.db('articles').where({ id: article.id }).update({ status: 'scheduled', scheduled_at: new Date(Date.now() - 60_000).toISOString() });
    // The first beat is refused, once the article is published or after a while (3 s, inside database.queryTimeout):
    // a daemon whose scheduler ran before it publishes the article first.
    await app.db.raw(`CREATE FUNCTION refuse_beat() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        FOR i IN 1..60 LOOP
          EXIT WHEN NOT EXISTS (SELECT 1 FROM articles WHERE status = 'scheduled');
          PERFORM pg_sleep(0.05);
        END LOOP;
        RAISE EXCEPTION 'no heartbeat here';
      END $$`);
    const events = Number((await app.db('webhook_events').count({ n: '*' }))[0].n);
    await app.db.raw('CREATE TRIGGER refuse_beat BEFORE INSERT ON daemon_heartbeats FOR EACH ROW EXECUTE FUNCTION refuse_beat()');

    const daemon = spawnServe(env, dir);
    expect((await daemon.exited).code, daemon.stderr()).toBe(1);
    // The database's answer, said as the write that failed; not "a bug in svc".
    expect(daemon.stderr()).toContain("error: Cannot serve: this daemon's heartbeat row (daemon_heartbeats), written before it serves so that svc migrate sees it, could not be written: ");
    expect(daemon.stderr()).toContain('no heartbeat here');
    expect(daemon.stderr()).not.toContain('a bug in svc');
    expect(await app.db('articles').where({ id: article.id }).first('status')).toEqual({ status: 'scheduled' });
    expect(Number((await app.db('webhook_events').count({ n: '*' }))[0].n)).toBe(events);
  });
});
