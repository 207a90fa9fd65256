import { afterEach, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { claimDatabase } from '../../src/db/locks.js';
import { migrateLatest, migrateStep, migrationStatus, rollbackLastBatch } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/log.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshConfig } from '../helpers/env.js';
import { migratedUpTo, olderDaemon } from '../helpers/older-daemon.js';

const KIND = '2026-11-23-1000-add-webhook-leases'; // adds daemon_heartbeats.kind
const PACK = '2026-11-29-1600-pack-content-articles'; // exports breaksRunningDaemons, as do 1401 and 1741
const RANK = '2026-11-30-1540-drop-content-tags-rank-index'; // does not
const log = createLogger('silent');
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const heartbeat = (id: string, kind: string | null, secondsAgo: number) => {
  const at = new Date(Date.now() - secondsAgo * 1000).toISOString();
  return { id, ...(kind ? { kind } : {}), pid: 1, host: 'elsewhere', started_at: at, seen_at: at };
};

describe(`migrations that daemons of the previous release cannot run beside (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('are refused while a daemon serves, naming both, with nothing changed; applied once it is gone', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await migratedUpTo(config, PACK);
    const pending = (await migrationStatus(app.db)).pending;
    const daemon = await olderDaemon(app);

    const cli = await runCli(['migrate'], { env, cwd: dir });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('Refusing to migrate while svc daemons serve this database');
    expect(cli.stderr).toContain(PACK);
    expect(cli.stderr).toContain(daemon.id);
    expect(cli.stderr).toContain('Stop every svc daemon serving this database');
    // Starting this version, or any command of it, migrates first: refused the same way.
    await expect(createApp({ config, log })).rejects.toMatchObject({ code: 'daemons_running', status: 409 });
    expect((await runCli(['workspaces', 'list'], { env, cwd: dir })).stderr).toContain('Refusing to migrate');
    expect((await migrationStatus(app.db)).pending).toEqual(pending);
    expect(await app.db.schema.hasColumn('content_articles', 'article_json')).toBe(true);

    await daemon.stop(); // a clean stop deletes a heartbeat; a SQLite daemon's lock ends with its process
    if (PG_URL) {
      // A beat 30 s old still counts (the daemon may beat on longer settings than this command's 10 s stale-after)...
      await app.db('daemon_heartbeats').insert(heartbeat('daemon_slow', 'daemon', 30));
      await expect(migrateLatest(app.db, { daemons: () => servingOf(app) })).rejects.toMatchObject({ code: 'daemons_running' });
      // ...one over a minute old is a daemon killed long ago.
      await app.db('daemon_heartbeats').where({ id: 'daemon_slow' }).delete();
      await app.db('daemon_heartbeats').insert(heartbeat('daemon_killed', 'daemon', 61));
    }
    const migrated = await runCli(['migrate'], { env, cwd: dir });
    expect(migrated.stderr).toBe('');
    expect(migrated.stdout).toContain(`applied  ${PACK}`);
    expect(await app.db.schema.hasColumn('content_articles', 'article_json')).toBe(false);
  });

  it('undoing them is refused while a daemon of this release serves, and done once it is gone', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await migratedUpTo(config, PACK);
    expect(await migrateLatest(app.db)).toContain(PACK); // this release's batch
    const daemon = await olderDaemon(app);
    const refused = await runCli(['migrate', '--rollback', '--yes'], { env, cwd: dir });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Refusing to roll back while svc daemons serve this database');
    expect(refused.stderr).toContain(daemon.id);
    // Before it asks: nobody is asked to confirm what cannot be done.
    expect((await runCli(['migrate', '--rollback'], { env, cwd: dir })).stderr).toContain('Refusing to roll back');
    expect(await app.db.schema.hasColumn('content_articles', 'article')).toBe(true);
    await daemon.stop();
    // A daemon that starts while the person confirms is seen too.
    let late: { stop: () => Promise<void> } | undefined;
    const confirm = async () => void (late = await olderDaemon(app));
    await expect(rollbackLastBatch(app.db, { daemons: () => servingOf(app), confirm })).rejects.toMatchObject({ code: 'daemons_running' });
    await late!.stop();
    const done = await runCli(['migrate', '--rollback', '--yes'], { env, cwd: dir });
    expect(done.stdout).toContain(`rolled back  ${PACK}`);
    expect(await app.db.schema.hasColumn('content_articles', 'article_json')).toBe(true);
  });

  it('a database from before heartbeats had a kind migrates when no daemon serves, and not while one beats', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await migratedUpTo(config, KIND);
    if (PG_URL) {
      await app.db('daemon_heartbeats').insert(heartbeat('daemon_old', null, 1));
      expect((await runCli(['migrate'], { env, cwd: dir })).stderr).toContain('daemon_old (pid 1 on elsewhere, last heartbeat');
      await app.db('daemon_heartbeats').delete();
    }
    const migrated = await runCli(['migrate'], { env, cwd: dir });
    expect(migrated.stderr).toBe('');
    expect((await migrationStatus(app.db)).pending).toEqual([]);
  });

  it("svc serve's own hold on the database is not a daemon serving it", async () => {
    const { config } = await freshConfig();
    await migratedUpTo(config, PACK);
    const own = await claimDatabase(config); // what svc serve takes before it migrates
    try {
      const app = await createApp({ config, log });
      stops.push(() => app.close());
      expect((await migrationStatus(app.db)).pending).toEqual([]);
    } finally {
      await own.release();
    }
  });

  it('a batch without them is rolled back while a daemon serves', async () => {
    const { config } = await freshConfig();
    const app = await migratedUpTo(config, RANK);
    await migrateStep(app.db, 'up'); // RANK alone, a batch of its own
    await olderDaemon(app);
    expect(await rollbackLastBatch(app.db, { daemons: () => servingOf(app) })).toEqual([RANK]);
  });
});

async function servingOf(app: App): Promise<string[]> {
  const { servingDaemons } = await import('../../src/db/serving-daemons.js');
  return servingDaemons(app.db, app.config);
}
