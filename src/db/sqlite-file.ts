import { closeSync, openSync, readSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import type { Db } from './connect.js';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = 'SQLite format 3\0';
/** The first bytes of a pg_dump custom-format archive. */
const PG_DUMP_MAGIC = 'PGDMP';

/** What a file holds, judged by its first bytes (an empty file is neither). */
export function fileKind(file: string): 'sqlite' | 'pg_dump' | 'other' {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    const text = head.subarray(0, n).toString('latin1');
    if (text === SQLITE_MAGIC) return 'sqlite';
    if (text.startsWith(PG_DUMP_MAGIC)) return 'pg_dump';
    return 'other';
  } finally {
    closeSync(fd);
  }
}

/**
 * Write a consistent copy of the live database to `file` (which must be absent or empty).
 * VACUUM INTO reads in one transaction: on a WAL database it sees one snapshot and blocks no
 * writer, so a daemon keeps serving and writing meanwhile. The copy is in rollback-journal mode.
 */
export async function vacuumInto(db: Db, file: string): Promise<void> {
  await db.raw('VACUUM INTO ?', [file]);
}

export interface SqliteFileCheck {
  /** PRAGMA integrity_check's lines: ['ok'] for a sound file. */
  integrity: string[];
  /** The file's tables, sqlite's own excluded. */
  tables: string[];
}

/**
 * Check `file`: integrity_check and the tables it holds. Only for a file svc made (a backup it
 * writes, a copy it restores from): SQLite's check of an FTS5 index (the search index) writes,
 * and fails on a connection opened read-only.
 */
export const checkSqliteFile = (file: string): Promise<SqliteFileCheck> =>
  onFile(file, async (conn) => ({
    integrity: (await all<{ integrity_check: string }>(conn, 'PRAGMA integrity_check')).map((r) => r.integrity_check),
    tables: (await all<{ name: string }>(conn, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")).map((r) => r.name),
  }));

/**
 * Move the -wal file into the database and end the WAL, so the file alone holds the database
 * before it is renamed (a -wal left beside a replaced file would be replayed into it). False when
 * another process has it open, even idle: leaving WAL mode needs every other connection gone, and
 * once the file is renamed away their writes would go nowhere.
 */
export const checkpointSqliteFile = (file: string): Promise<boolean> =>
  onFile(file, async (conn) => {
    conn.configure('busyTimeout', 5000);
    const [row] = await all<{ busy: number; log: number; checkpointed: number }>(conn, 'PRAGMA wal_checkpoint(TRUNCATE)');
    if (row && row.busy !== 0) return false;
    conn.configure('busyTimeout', 0); // an open connection holds its lock until it closes: waiting is pointless
    const [mode] = await all<{ journal_mode: string }>(conn, 'PRAGMA journal_mode = DELETE').catch((err: { code?: string }) => {
      if (err.code === 'SQLITE_BUSY') return [{ journal_mode: 'wal' }];
      throw err;
    });
    return mode?.journal_mode === 'delete';
  });

/** Drop every trigger and view of a restore's working copy: svc has none, so they were added and must not run in svc. */
export const dropForeignSchema = (file: string): Promise<string[]> =>
  onFile(file, async (conn) => {
    const found = await all<{ type: string; name: string }>(conn, "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view')");
    for (const { type, name } of found) {
      await new Promise<void>((resolve, reject) => conn.exec(`DROP ${type === 'view' ? 'VIEW' : 'TRIGGER'} IF EXISTS "${name.replace(/"/g, '""')}"`, (err) => (err ? reject(err) : resolve())));
    }
    return found.map((f) => `${f.type} ${f.name}`);
  });

/** Run fn on a connection of svc's own to `file` (read-write, never created), closed after. */
async function onFile<T>(file: string, fn: (conn: sqlite3.Database) => Promise<T>): Promise<T> {
  const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
    const c: sqlite3.Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(c)));
  });
  try {
    return await fn(conn);
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

const all = <T>(conn: sqlite3.Database, sql: string) =>
  new Promise<T[]>((resolve, reject) => conn.all(sql, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))));
