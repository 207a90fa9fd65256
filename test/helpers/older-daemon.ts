import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import type { Config } from '../../src/config/schema.js';
import { databaseIdentity } from '../../src/db/errors.js';
import { migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { createLogger } from '../../src/lib/log.js';
import { startHolder } from '../../src/webhooks/lease.js';
import { PG_URL } from './env.js';

/** The app of a database migrated up to `next` (not applied yet), closed when the test ends. */
export async function migratedUpTo(config: Config, next: string): Promise<App> {
  const app = await createApp({ config, migrate: false, log: createLogger('silent') });
  onTestFinished(() => app.close());
  while ((await migrationStatus(app.db)).pending[0] !== next) await migrateStep(app.db, 'up');
  return app;
}

/**
 * A daemon of the previous release serving the database, as it shows itself: on SQLite it holds the file's daemon
 * lock (an open BEGIN IMMEDIATE on `<file>-daemon.lock`, in its own process); on PostgreSQL it beats. Stopped when the
 * test ends; `id`: how svc names it among the daemons serving.
 */
export async function olderDaemon(app: App): Promise<{ id: string; stop: () => Promise<void> }> {
  if (PG_URL) {
    const holder = await startHolder(app, 'daemon');
    onTestFinished(() => holder.stop());
    return { id: holder.id, stop: () => holder.stop() };
  }
  const file = `${(app.config.database as { filename: string }).filename}-daemon.lock`;
  const script = `import sqlite3 from 'sqlite3'; const db = new sqlite3.Database(${JSON.stringify(file)}); db.exec('BEGIN IMMEDIATE', (e) => { if (e) throw e; console.log('held'); }); process.stdin.resume();`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  // ...and, as 0.2.0 did, records itself in the data directory.
  writeFileSync(path.join(app.config.dataDir, `daemon-${child.pid}.json`), JSON.stringify({ pid: child.pid, database: databaseIdentity(app.config.database), since: '2026-11-30T00:00:00.000Z', webhooks: { allowPrivateNetworks: false, allowedHosts: [] } }));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL'); // its lock ends with its process, however it ends
    await once(child, 'exit');
  };
  onTestFinished(stop);
  return { id: `svc serve (pid ${child.pid}`, stop };
}
