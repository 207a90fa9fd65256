import { copyFileSync, existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { openDb } from '../db/connect.js';
import { claimDatabase } from '../db/daemon-lock.js';
import { ensurePrivateDir } from '../db/files.js';
import { migrateLatest, migrationStatus } from '../db/migrate.js';
import { checkpointSqliteFile } from '../db/sqlite-file.js';
import type { Logger } from '../lib/log.js';
import { backupErrors } from './errors.js';
import { fileStamp, makePrivate, removeSqliteFiles, sideName, syncDir } from './files.js';
import { checkSvcSqliteFile } from './inspect.js';

export interface RestoreResult {
  /** The database file now holding the backup. */
  database: string;
  from: string;
  /** Where the database that was there before is kept (null when there was none). */
  previous: string | null;
  /** Migrations applied to the backup because it was older than this svc. */
  migrated: string[];
}

/**
 * Put a backup in place of the SQLite database (issue 16). Holding the daemon lock for the
 * whole run, so no daemon serves the file meanwhile (nor starts, nor a second restore), it
 * copies the backup beside the database, checks it (integrity, an svc database, not newer
 * than this svc), migrates the copy, then swaps it in with one rename: the database file is
 * always either the old one or the new one. The old one stays as `<file>.before-restore-<time>`.
 */
export async function restoreDatabase(database: Config['database'], backup: string, options: { now?: Date; log?: Logger } = {}): Promise<RestoreResult> {
  if (database.client === 'pg') throw backupErrors.restoreIntoPostgres();
  const target = database.filename!;
  if (!existsSync(backup) || !statSync(backup).isFile()) throw backupErrors.notFound(backup);
  ensurePrivateDir(path.dirname(target));
  const lock = await claimDatabase(database).catch((err: { code?: string }) => {
    throw err.code === 'database_in_use' ? backupErrors.daemonRunning(target) : err;
  });
  const staged = sideName(target, 'restoring');
  try {
    // Checked before anything is copied, so a garbage file costs nothing; checked again as the
    // copy that goes in place (the backup file is never opened for writing).
    await checkSvcSqliteFile(backup);
    copyFileSync(backup, staged);
    makePrivate(staged);
    const migrated = await migrateStaged(staged, backup, options.log);
    await checkSvcSqliteFile(staged);

    let previous: string | null = null;
    if (existsSync(target)) {
      // The old database must be whole in its file: a -wal left beside the new file would be
      // replayed into it.
      if (!(await checkpointSqliteFile(target)) || walHasContent(target)) throw backupErrors.inUse(target);
      previous = keepPrevious(target, `${target}.before-restore-${fileStamp(options.now ?? new Date())}`);
    }
    rmSync(`${target}-wal`, { force: true });
    rmSync(`${target}-shm`, { force: true });
    renameSync(staged, target);
    syncDir(path.dirname(target));
    return { database: target, from: backup, previous, migrated };
  } finally {
    removeSqliteFiles(staged);
    await lock.release();
  }
}

/** Refuse a backup newer than this svc; bring an older one to this svc's schema. */
async function migrateStaged(staged: string, backup: string, log: Logger | undefined): Promise<string[]> {
  const db = openDb({ client: 'sqlite3', filename: staged, poolMax: 1 });
  try {
    const status = await migrationStatus(db);
    if (status.unknown.length > 0) throw backupErrors.newer(backup, status.unknown);
    return await migrateLatest(db, { log });
  } finally {
    // The last connection closing checkpoints and removes the copy's -wal.
    await db.destroy();
  }
}

/** Link the old database to `name` (or `name-2`, `-3`... when restored twice in one second). */
function keepPrevious(target: string, name: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    try {
      linkSync(target, candidate);
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

const walHasContent = (file: string) => (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0;
