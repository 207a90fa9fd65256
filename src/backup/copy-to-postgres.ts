import { existsSync } from 'node:fs';
import { settingSource, sqliteChosenBy } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { type Db, openDb } from '../db/connect.js';
import { ensurePrivateFile } from '../db/files.js';
import { migrateLatest, migrationStatus } from '../db/migrate.js';
import { type MovedMarker, markMoved, movedMarkerFile } from '../db/moved.js';
import { vacuumInto } from './sqlite-file.js';
import { lockForCopy, occupiedTables, resetSequences, tablesInDependencyOrder, truncateTables } from './table-copy.js';
import { AppError, usageError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { type CopyProgress, copyRows, tablesIn } from './copy-rows.js';
import { refuseFileBreakingSchema, refuseUnfitMigrations } from './check-rows.js';
import { backupErrors } from './errors.js';
import { removeSqliteFiles, sideName } from './files.js';

export type { CopyProgress } from './copy-rows.js';

export interface CopyResult {
  from: string;
  /** The target, its password hidden. */
  to: string;
  tables: Array<{ table: string; rows: number }>;
  rows: number;
  durationMs: number;
  /** The SQLite file is now marked as moved: svc refuses it, naming the new home (db/moved.ts). */
  moved: MovedMarker & { marker: string };
}

export interface CopyOptions {
  /** Empty svc's tables in the target first (they must otherwise be empty). */
  force?: boolean;
  onProgress?: (p: CopyProgress) => void;
  log?: Logger;
  now?: Date;
}

/**
 * Move a SQLite installation into an empty PostgreSQL database. The copy is taken
 * from an online snapshot (VACUUM INTO a temporary file), so a daemon may keep serving the
 * source; writes after the snapshot are not copied. The target is migrated to this svc's schema,
 * then every table is copied in dependency order, in batches, in ONE transaction: row counts
 * are compared before it commits, so the target ends either a whole copy or as it was. Once
 * committed, the SQLite file is marked as moved.
 */
export async function copyToPostgres(config: Pick<Config, 'database' | 'sources' | 'source'>, to: string, options: CopyOptions = {}): Promise<CopyResult> {
  const started = Date.now();
  const { database } = config;
  if (database.client !== 'sqlite3') throw usageError(`svc db copy copies a SQLite installation; this one already uses PostgreSQL (${settingSource(config, 'database.url')})`, 'To copy one PostgreSQL database to another, use pg_dump and pg_restore.');
  if (!/^postgres(ql)?:\/\//.test(to)) throw usageError(`--to takes a postgres:// URL, not "${to}"`);
  const filename = database.filename!;
  if (!existsSync(filename)) throw backupErrors.noDatabase(filename, sqliteChosenBy(config), 'copy');

  const snapshotFile = sideName(filename, 'copy');
  let source: Db | null = null;
  const target = openDb({ client: 'pg', url: to, filename: '', poolMax: 2 });
  try {
    source = await snapshot(filename, snapshotFile, options.log);
    // Before the target is touched: rows the target's constraints would refuse, named.
    await refuseFileBreakingSchema(snapshotFile, sideName(filename, 'check'), filename, options.log);
    await migrateLatest(target, { log: options.log });
    const tables = await tablesIn(target, await tablesInDependencyOrder(source));
    const src = source;
    const copied = await target.transaction(async (trx) => {
      await lockForCopy(trx);
      if (options.force) await truncateTables(trx, tables);
      else {
        const occupied = await occupiedTables(trx, tables);
        if (occupied.length > 0) throw notEmpty(occupied);
      }
      const done = await copyRows(src, trx, tables, options.onProgress, undefined, filename);
      await resetSequences(trx, tables);
      return done;
    });
    // Committed: from now on the SQLite file is the old home, and a command run without the new
    // URL is refused instead of writing where no daemon will serve it.
    const moved = { ...markMoved(filename, to, options.now ?? new Date()), marker: movedMarkerFile(filename) };
    return { from: filename, to: redact(to), tables: copied, rows: copied.reduce((n, t) => n + t.rows, 0), durationMs: Date.now() - started, moved };
  } finally {
    await source?.destroy();
    await target.destroy();
    removeSqliteFiles(snapshotFile);
  }
}

/** A consistent copy of the live database, at this svc's schema (refused when newer). */
async function snapshot(filename: string, file: string, log: Logger | undefined): Promise<Db> {
  const live = openDb({ client: 'sqlite3', filename, poolMax: 1 });
  try {
    ensurePrivateFile(file);
    await vacuumInto(live, file);
  } finally {
    await live.destroy();
  }
  const db = openDb({ client: 'sqlite3', filename: file, poolMax: 1 });
  try {
    refuseUnfitMigrations(await migrationStatus(db), filename);
    await migrateLatest(db, { log });
    return db;
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

const notEmpty = (occupied: Array<{ table: string; rows: number }>) =>
  new AppError('target_not_empty', 409, `The PostgreSQL database already holds svc data (${occupied.slice(0, 4).map((o) => `${o.table}: ${o.rows} rows`).join(', ')}${occupied.length > 4 ? ', ...' : ''}); nothing was copied`, {
    hint: 'Copy into a new, empty database (createdb svc), or pass --force to replace the svc data in this one.',
    details: { occupied },
  });

/** A URL fit to print: its password replaced. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
