import { describe, expect, it, onTestFinished } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/lib/log.js';
import { DATABASE_CHECKS } from '../../src/cli/doctor.js';
import { migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshConfig } from '../helpers/env.js';
import { migratedUpTo, olderDaemon } from '../helpers/older-daemon.js';
import { seedWebhookArticle } from '../helpers/seed.js';

/** The first migration of this release that daemons of the previous one cannot run beside (breaksRunningDaemons). */
const FIRST_BREAKING = '2026-11-29-1401-fill-article-publish-state';

/** What a doctor that writes nothing leaves as it was: the migrations applied and the rows of a table it reads. */
async function written(app: App) {
  const migrations = await app.db('knex_migrations').orderBy('id').select('id', 'name', 'batch');
  const heartbeats = await app.db('daemon_heartbeats').orderBy('id').select('id', 'seen_at');
  const workspaces = Number((await app.db('workspaces').count({ n: '*' }))[0].n);
  const locks = await app.db('knex_migrations_lock').select('*');
  return { migrations, heartbeats, workspaces, locks };
}

/** The app of a database migrated through `last` (every migration when not given), closed when the test ends. */
async function migratedThrough(config: Config, last?: string): Promise<App> {
  const app = await createApp({ config, migrate: false, log: createLogger('silent') });
  onTestFinished(() => app.close());
  for (;;) {
    const { applied, pending } = await migrationStatus(app.db);
    if (pending.length === 0 || (last && applied.includes(last))) return app;
    await migrateStep(app.db, 'up');
  }
}

describe(`svc doctor on a database behind this release (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('with a daemon of the previous release serving: names the pending migrations and the daemon, runs what the schema allows, skips the rest, writes nothing, exits 1', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await migratedUpTo(config, FIRST_BREAKING);
    const { pending } = await migrationStatus(app.db);
    const daemon = await olderDaemon(app);
    const before = await written(app);

    const r = await runCli(['doctor'], { env, cwd: dir });
    const said = r.stdout + r.stderr;
    expect(r.code, said).toBe(1);
    expect(said).not.toContain('Refusing to migrate');
    expect(said).toContain(`FAIL  migrations: ${pending.length} pending (${pending.join(', ')}). svc migrate applies them once every svc daemon serving this database is stopped`);
    expect(said).toContain(daemon.id);
    expect(said).toMatch(/ok {4}database: \w+ reachable \(\d+ ms\)\n/); // not "migrations applied"
    // The webhooks and the scheduled articles read tables this schema has; the table sizes do not.
    expect(said).toContain(PG_URL ? `ok    daemon: running: ${daemon.id}` : 'ok    daemon: not running');
    expect(said).toContain('WARN  table sizes: skipped: it reads the tables as 2026-11-30-2300-move-webhook-snapshots leaves them, not applied yet');
    expect(said).not.toContain('skipped: it reads the tables as 2026-11-23');
    expect(said).toContain('1 problem need fixing');

    expect(await written(app)).toEqual(before);
    expect((await migrationStatus(app.db)).pending).toEqual(pending);

    // With the daemon gone, migrating would go ahead: a warning, exit 0; still nothing written.
    await daemon.stop();
    const gone = await runCli(['doctor'], { env, cwd: dir });
    expect(gone.code, gone.stdout + gone.stderr).toBe(0);
    expect(gone.stdout).toContain(`WARN  migrations: ${pending.length} pending (${pending.join(', ')}): svc migrate applies them (no svc daemon serves this database now`);
    expect((await written(app)).migrations).toEqual(before.migrations);
  });

  it('each check that reads the database runs on one migrated exactly as far as it declares, rows to read included', async () => {
    for (const needs of new Set(DATABASE_CHECKS.map((c) => c.needs))) {
      const { dir, env, config } = await freshConfig();
      const app = await createApp({ config, log: createLogger('silent') });
      onTestFinished(() => app.close());
      // What the checks read, written by this release, then its migrations undone down to `needs`.
      const { ws, article } = await seedWebhookArticle(app);
      const at = new Date().toISOString();
      await app.db('articles').where({ id: article.id }).update({ scheduled_at: at, publish_error: 'the receiver said no', publish_error_at: at, publish_failures: 2 });
      while ((await migrationStatus(app.db)).applied.at(-1) !== needs) await migrateStep(app.db, 'down');

      const r = await runCli(['doctor'], { env, cwd: dir });
      const said = `${needs}:\n${r.stdout}${r.stderr}`;
      const runs = (check: string) => DATABASE_CHECKS.find((c) => c.check === check)!.needs <= needs;
      for (const c of DATABASE_CHECKS) expect(said.includes(`WARN  ${c.check}: skipped`), `${c.check} at ${said}`).toBe(!runs(c.check));
      expect(said).toContain(`ok    webhook of ${ws.name}: https://hooks.example/svc: 0 pending, 0 failed`);
      if (runs('scheduled articles')) expect(said).toContain(`FAIL  scheduled article ${article.slug} of ${ws.name}: scheduled publish failed at ${at} (2 times): the receiver said no`);
      if (runs('table sizes')) expect(said).toContain('ok    table webhook_event_snapshots: 0 rows');
      expect(r.code, said).toBe(runs('scheduled articles') ? 1 : 0);
    }
  });

  it('on a database a newer svc migrated: says so, skips every check that reads it, exits 1', async () => {
    const { dir, env, config } = await freshConfig();
    const app = await migratedThrough(config);
    await app.db('knex_migrations').insert({ name: '2099-01-01-0000-from-the-future', batch: 99, migration_time: new Date() });
    const r = await runCli(['doctor'], { env, cwd: dir });
    const said = r.stdout + r.stderr;
    expect(r.code, said).toBe(1);
    expect(said).toContain('FAIL  migrations: this database was migrated by a newer svc: 1 migration this svc does not know (2099-01-01-0000-from-the-future)');
    for (const c of DATABASE_CHECKS) expect(said).toContain(`WARN  ${c.check}: skipped: this svc cannot read a database a newer svc migrated`);
  });
});
