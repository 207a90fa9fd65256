import { copyFileSync, existsSync, linkSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { settingSource } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { type Db, openDb } from '../db/connect.js';
import { claimDatabase } from '../db/locks.js';
import { ensurePrivateDir } from '../db/files.js';
import { migrateLatest, migrationStatus } from '../db/migrate.js';
import { checkpointSqliteFile, dropForeignSchema } from './sqlite-file.js';
import { tablesInDependencyOrder } from './table-copy.js';
import type { Logger } from '../lib/log.js';
import { copyRows, tablesIn } from './copy-rows.js';
import { backupErrors } from './errors.js';
import { fileStamp, makePrivate, removeSqliteFiles, sideName, syncDir } from './files.js';
import { refuseRowsBreakingSchema, refuseUnfitMigrations } from './check-rows.js';
import { checkSvcSqliteFile } from './inspect.js';
import { type RestoreDiff, compareForRestore } from './restore-diff.js';

export interface RestoreResult {
  /** The database file now holding the backup. */
  database: string;
  from: string;
  /** Where the database that was there before is kept (null when there was none). */
  previous: string | null;
  /** Migrations applied to the backup because it was older than this svc. */
  migrated: string[];
  /** The rows copied into the new database, per table. */
  tables: Array<{ table: string; rows: number }>;
  /** What the restore rolled back (null when there was no readable database before). */
  rolledBack: RestoreDiff | null;
}

/**
 * Put a backup in place of the SQLite database. Holding the daemon lock for the
 * whole run, so no daemon serves the file meanwhile (nor starts, nor a second restore), it
 * copies the backup beside the database, checks it (integrity, an svc database, not newer
 * than this svc) and migrates the copy. Only the rows come back: a fresh database is
 * built with svc's own migrations and the copy's rows are copied into it (the same copy as
 * `svc db copy`), so a trigger, view or column added to the backup never runs in svc. Then the
 * fresh database is swapped in with one rename: the database file is always either the old one
 * or the new one. The old one stays as `<file>.before-restore-<time>`.
 */
export async function restoreDatabase(config: Pick<Config, 'database' | 'sources' | 'source'>, backup: string, options: { now?: Date; log?: Logger; confirm?: (database: string, rolledBack: RestoreDiff | null) => Promise<void> } = {}): Promise<RestoreResult> {
  const { database } = config;
  if (database.client === 'pg') throw backupErrors.restoreIntoPostgres(settingSource(config, 'database.url'));
  const target = database.filename!;
  if (!existsSync(backup) || !statSync(backup).isFile()) throw backupErrors.notFound(backup);
  ensurePrivateDir(path.dirname(target));
  const lock = await claimDatabase(config).catch((err: { code?: string }) => {
    throw err.code === 'database_in_use' ? backupErrors.daemonRunning(target) : err;
  });
  const source = sideName(target, 'restore-source');
  const staged = sideName(target, 'restoring');
  try {
    // The backup file is never opened: its copy is checked (the check writes, see
    // checkSqliteFile), and checked again as the database that goes in place.
    copyFileSync(backup, source);
    makePrivate(source);
    await checkSvcSqliteFile(source, backup);
    // Nothing of the backup's schema runs, not even while svc's migrations bring it up to date.
    await dropForeignSchema(source);
    const migrated = await migrateStaged(source, backup, options.log);
    const tables = await rebuild(source, staged, backup, options.log);
    await checkSvcSqliteFile(staged);

    let previous: string | null = null;
    let rolledBack: RestoreDiff | null = null;
    if (existsSync(target)) {
      rolledBack = await compareForRestore(target, staged);
      await options.confirm?.(target, rolledBack);
      // The old database must be whole in its file: a -wal left beside the new file would be
      // replayed into it.
      if (!(await checkpointSqliteFile(target)) || walHasContent(target)) throw backupErrors.inUse(target);
      previous = keepPrevious(target, `${target}.before-restore-${fileStamp(options.now ?? new Date())}`);
    }
    rmSync(`${target}-wal`, { force: true });
    rmSync(`${target}-shm`, { force: true });
    renameSync(staged, target);
    syncDir(path.dirname(target));
    return { database: target, from: backup, previous, migrated, tables, rolledBack };
  } finally {
    removeSqliteFiles(source);
    removeSqliteFiles(staged);
    await lock.release();
  }
}

/** Refuse a backup newer than this svc; bring an older one to this svc's schema. */
async function migrateStaged(staged: string, backup: string, log: Logger | undefined): Promise<string[]> {
  const db = openDb({ client: 'sqlite3', filename: staged, poolMax: 1 });
  try {
    refuseUnfitMigrations(await migrationStatus(db), backup);
    return await migrateLatest(db, { log });
  } finally {
    // The last connection closing checkpoints and removes the copy's -wal.
    await db.destroy();
  }
}

/**
 * A fresh database at `staged`, made by svc's migrations, holding the rows of `source`; refused
 * (naming `backup`) before a row is copied when the rows break svc's schema.
 */
async function rebuild(source: string, staged: string, backup: string, log: Logger | undefined): Promise<Array<{ table: string; rows: number }>> {
  const from: Db = openDb({ client: 'sqlite3', filename: source, poolMax: 1 });
  const fresh: Db = openDb({ client: 'sqlite3', filename: staged, poolMax: 1 });
  try {
    await migrateLatest(fresh, { log });
    const tables = await tablesIn(from, await tablesInDependencyOrder(fresh));
    // One connection (poolMax 1): the source attached to it is read by SQLite itself (copyTable).
    await fresh.raw("ATTACH DATABASE ? AS restore_source", [source]);
    let failed = false;
    try {
      await refuseRowsBreakingSchema(fresh, 'restore_source', backup);
      return await fresh.transaction(async (trx) => {
        await trx.raw('PRAGMA defer_foreign_keys = ON'); // checked at commit: rows may reference rows of their own table
        return copyRows(from, trx, tables, undefined, 'restore_source', backup);
      });
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      // A failed detach must not hide why the restore stopped; the connection is closed anyway.
      await fresh.raw('DETACH DATABASE restore_source').catch((err: unknown) => {
        if (!failed) throw err;
      });
    }
  } finally {
    await from.destroy();
    // The last connection closing checkpoints and removes the -wal: the file alone is the database.
    await fresh.destroy();
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
