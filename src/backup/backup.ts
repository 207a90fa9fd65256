import { existsSync, linkSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { settingToChange, sqliteChosenBy } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { openDb } from '../db/connect.js';
import { ensurePrivateDir, ensurePrivateFile } from '../db/files.js';
import { vacuumInto } from './sqlite-file.js';
import { backupErrors } from './errors.js';
import { dirOf, isSqliteFileOf, makePrivate, sideName, syncDir } from './files.js';
import { checkSvcSqliteFile } from './inspect.js';
import { findProgram, pgDumpMissing, runPgTool, splitPassword } from './pg-dump.js';

export interface BackupResult {
  file: string;
  database: 'sqlite' | 'postgres';
  /** How the snapshot was taken. */
  method: 'vacuum-into' | 'pg_dump';
  bytes: number;
  durationMs: number;
  /** What checked the written file: SQLite's integrity_check, or pg_restore reading the archive. */
  check: string;
}

export interface BackupOptions {
  /** The environment of the command: PATH finds pg_dump, PG* variables reach it. */
  env: Record<string, string | undefined>;
}

/**
 * A consistent snapshot of the database while a daemon serves and writes. The file
 * is written under a temporary name beside `out`, checked, then linked to `out`, which never
 * exists half-written and is never overwritten (two backups to one name: the second is refused).
 */
export async function backupDatabase(config: Pick<Config, 'database' | 'sources' | 'source'>, out: string, options: BackupOptions): Promise<BackupResult> {
  const started = Date.now();
  const { database } = config;
  if (existsSync(out)) throw backupErrors.outExists(out);
  if (database.client === 'sqlite3' && isSqliteFileOf(database.filename!, out)) throw backupErrors.outIsDatabaseFile(out, database.filename!);
  writable(out, () => ensurePrivateDir(dirOf(out)));
  const partial = sideName(out, 'partial');
  try {
    const taken = database.client === 'pg' ? await dumpPostgres(config, partial, out, options) : await snapshotSqlite(config, partial, out);
    try {
      linkSync(partial, out);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw backupErrors.outExists(out);
      throw err;
    }
    syncDir(path.dirname(out));
    return { file: out, ...taken, bytes: statSync(out).size, durationMs: Date.now() - started };
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Creating the backup's directory or file: a failure names --out, not the data directory. */
function writable(file: string, create: () => void): void {
  try {
    create();
  } catch (err) {
    throw backupErrors.cannotWrite(file, err as Error);
  }
}

type Taken = Pick<BackupResult, 'database' | 'method' | 'check'>;

async function snapshotSqlite(config: Pick<Config, 'database' | 'sources' | 'source'>, partial: string, out: string): Promise<Taken> {
  const filename = config.database.filename!;
  if (!existsSync(filename)) throw backupErrors.noDatabase(filename, sqliteChosenBy(config), 'back up');
  writable(out, () => ensurePrivateFile(partial)); // empty and 0600: VACUUM INTO fills an empty file and keeps its mode
  const db = openDb({ client: 'sqlite3', filename, poolMax: 1 });
  try {
    await vacuumInto(db, partial);
  } finally {
    await db.destroy();
  }
  await checkSvcSqliteFile(partial);
  return { database: 'sqlite', method: 'vacuum-into', check: 'integrity_check ok' };
}

async function dumpPostgres(config: Pick<Config, 'database' | 'sources'>, partial: string, out: string, { env }: BackupOptions): Promise<Taken> {
  const { database } = config;
  const url = database.url!;
  const deadlines = { connectTimeoutMs: database.connectTimeout, timeoutMs: database.backupTimeout, timeoutKey: settingToChange(config, 'database.backupTimeout') };
  const pgDump = findProgram('pg_dump', env.PATH);
  if (!pgDump) throw pgDumpMissing(url, out);
  writable(out, () => ensurePrivateFile(partial));
  const { url: dbname, password } = splitPassword(url);
  // One transaction (pg_dump's snapshot): consistent while daemons keep writing.
  await runPgTool(pgDump, ['--format=custom', '--no-owner', `--file=${partial}`, `--dbname=${dbname}`], env, deadlines, password);
  makePrivate(partial);
  const pgRestore = findProgram('pg_restore', env.PATH);
  if (!pgRestore) return { database: 'postgres', method: 'pg_dump', check: 'pg_dump exit 0 (pg_restore not found to read the archive back)' };
  const listing = await runPgTool(pgRestore, ['--list', partial], env, deadlines);
  const entries = listing.split('\n').filter((l) => /^\d+;/.test(l)).length;
  return { database: 'postgres', method: 'pg_dump', check: `pg_restore --list read ${entries} entries` };
}
