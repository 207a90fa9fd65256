import sqlite3 from 'sqlite3';
import { ensurePrivateFile } from './files.js';

/** A lock held by this process; release() is idempotent. */
export interface HeldLock {
  release(): Promise<void>;
}

/**
 * An exclusive lock between processes on a sidecar file next to the database, held as an open
 * write transaction (BEGIN IMMEDIATE) on that file. SQLite's own file locks do the work: they
 * are POSIX locks that the operating system drops when the process ends, kill -9 included, so a
 * crash leaves nothing that blocks the next start; and SQLite also keeps two connections of one
 * process apart (in-process tests). The sidecar is a separate, empty SQLite database: the real
 * database stays free for knex's own connections. When another holder has it: null, or with
 * `onWait` (called once) wait for it, polling so no libuv thread sleeps in SQLite's busy handler.
 */
export async function sqliteLock(file: string, onWait?: () => void, pollMs = 50): Promise<HeldLock | null> {
  ensurePrivateFile(file);
  const conn = await open(file);
  try {
    for (let waited = false; ; waited = true) {
      if (await begin(conn)) return held(conn);
      if (!onWait) break;
      if (!waited) onWait();
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } catch (err) {
    await close(conn);
    throw err;
  }
  await close(conn);
  return null;
}

function open(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const conn = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      conn.configure('busyTimeout', 0);
      // Nothing is ever written: no -journal file beside the lock file.
      conn.exec('PRAGMA journal_mode = OFF', (e) => (e ? reject(e) : resolve(conn)));
    });
  });
}

/** True when this connection now holds the write lock, false when another one does. */
function begin(conn: sqlite3.Database): Promise<boolean> {
  return new Promise((resolve, reject) =>
    conn.exec('BEGIN IMMEDIATE', (err) => {
      if (!err) return resolve(true);
      const code = (err as { code?: string }).code;
      return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' ? resolve(false) : reject(err);
    }),
  );
}

function held(conn: sqlite3.Database): HeldLock {
  let released: Promise<void> | null = null;
  return {
    release: () =>
      (released ??= new Promise<void>((resolve) => conn.exec('ROLLBACK', () => resolve())).then(() => close(conn))),
  };
}

const close = (conn: sqlite3.Database) => new Promise<void>((resolve) => conn.close(() => resolve()));
