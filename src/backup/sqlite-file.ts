import { closeSync, openSync, readSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import type { Db } from '../db/connect.js';

/** Judged by the first bytes (an empty file is neither). */
export function fileKind(file: string): 'sqlite' | 'pg_dump' | 'other' {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    const text = head.subarray(0, n).toString('latin1');
    if (text === 'SQLite format 3\0') return 'sqlite';
    if (text.startsWith('PGDMP')) return 'pg_dump';
    return 'other';
  } finally {
    closeSync(fd);
  }
}

/** To an absent or empty `file`, in one read transaction: one snapshot, blocking no writer. The copy is in rollback-journal mode. */
export async function vacuumInto(db: Db, file: string): Promise<void> {
  await db.raw('VACUUM INTO ?', [file]);
}

/** integrity: ['ok'] when sound. Only for a file svc made: checking an FTS5 index (the search index) writes, so fails read-only. */
export const checkSqliteFile = (file: string) =>
  onFile(file, async (conn) => ({
    integrity: (await all<{ integrity_check: string }>(conn, 'PRAGMA integrity_check')).map((r) => r.integrity_check),
    tables: (await all<{ name: string }>(conn, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")).map((r) => r.name),
  }));

/**
 * End the WAL before the file is renamed (a -wal left beside a replaced file would be replayed
 * into it). False when another process has it open, even idle (leaving WAL mode needs every other
 * connection gone): renamed away, its writes would go nowhere.
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

/** For a restore's working copy: svc has no triggers or views, so these were added and must not run. */
export const dropForeignSchema = (file: string): Promise<string[]> =>
  onFile(file, async (conn) => {
    const found = await all<{ type: string; name: string }>(conn, "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view')");
    for (const { type, name } of found) {
      await all(conn, `DROP ${type === 'view' ? 'VIEW' : 'TRIGGER'} IF EXISTS "${name.replace(/"/g, '""')}"`);
    }
    return found.map((f) => `${f.type} ${f.name}`);
  });

/** Read-write, never created. */
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
